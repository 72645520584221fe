// Hamming embedding, the inverted file and all-against-all image scoring.
#include "inverted_index.h"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <Eigen/QR>

#include "../util/parallel.h"
#include "../util/random.h"

namespace cvis {
namespace {

using Rows = Eigen::Map<const Eigen::Matrix<float, VocabularyTree::kDim, Eigen::Dynamic>>;

// A random orthogonal kBits x kDim matrix: the first rows of Q from a Gaussian matrix's QR.
template <int Bits, int Dim>
Eigen::Matrix<float, Bits, Dim> RandomProjection(uint64_t seed) {
  SplitMix64 random{SplitMix64::Mix(seed ^ 0x48414D4D494E47ULL)};
  Eigen::MatrixXd gaussian(Dim, Dim);
  for (int c = 0; c < Dim; ++c) {
    for (int r = 0; r < Dim; ++r) {
      // Box-Muller; 1 - u keeps the logarithm finite.
      const double u = 1.0 - random.UniformDouble(), v = random.UniformDouble();
      gaussian(r, c) = std::sqrt(-2.0 * std::log(u)) * std::cos(2.0 * M_PI * v);
    }
  }
  const Eigen::MatrixXd q = Eigen::HouseholderQR<Eigen::MatrixXd>(gaussian).householderQ();
  return q.topRows(Bits).template cast<float>();
}

}  // namespace

InvertedIndex::InvertedIndex(const VocabularyTree& tree, const float* training, int64_t training_count,
                             const std::vector<DescriptorBlock>& images, const InvertedIndexOptions& options)
    : options_(options) {
  projection_ = RandomProjection<kBits, kDim>(options.seed);
  for (int h = 0; h <= kBits; ++h) {
    vote_weight_[h] = h <= options.max_hamming_distance
                          ? std::exp(-float(h * h) / (options.hamming_sigma * options.hamming_sigma))
                          : 0.0f;
  }
  const int32_t num_words = tree.NumWords();
  const int threads = std::max(1, options.num_threads);

  // 1. Per-word medians of the projected training descriptors (the projected centroid where a
  //    word saw none).
  {
    std::vector<int32_t> words(size_t(std::max<int64_t>(0, training_count)));
    ParallelFor(training_count, threads, 4096, [&](int64_t begin, int64_t end, int) {
      for (int64_t i = begin; i < end; ++i) words[size_t(i)] = tree.Quantize(training + i * kDim);
    });
    const Eigen::Matrix<float, kBits, Eigen::Dynamic> projected = Project(training, training_count);
    std::vector<std::vector<int64_t>> members(static_cast<size_t>(num_words));
    for (int64_t i = 0; i < training_count; ++i) members[size_t(words[size_t(i)])].push_back(i);
    thresholds_.assign(size_t(num_words) * kBits, 0.0f);
    ParallelFor(num_words, threads, 64, [&](int64_t begin, int64_t end, int) {
      std::vector<float> values;
      for (int64_t w = begin; w < end; ++w) {
        float* threshold = &thresholds_[size_t(w) * kBits];
        const auto& rows = members[size_t(w)];
        if (rows.empty()) {
          const Eigen::Matrix<float, kBits, 1> centre =
              projection_ * Eigen::Map<const Eigen::Matrix<float, kDim, 1>>(tree.WordCentroid(int32_t(w)));
          for (int b = 0; b < kBits; ++b) threshold[b] = centre[b];
          continue;
        }
        for (int b = 0; b < kBits; ++b) {
          values.clear();
          for (int64_t i : rows) values.push_back(projected(b, i));
          auto middle = values.begin() + values.size() / 2;
          std::nth_element(values.begin(), middle, values.end());
          threshold[b] = *middle;
        }
      }
    });
  }

  // 2. Every descriptor of every image: its word and signature.
  const int32_t n = int32_t(images.size());
  image_offsets_.assign(size_t(n) + 1, 0);
  for (int32_t i = 0; i < n; ++i) image_offsets_[size_t(i) + 1] = image_offsets_[size_t(i)] + images[size_t(i)].count;
  const int64_t total = image_offsets_.back();
  feature_words_.resize(size_t(total));
  feature_signatures_.resize(size_t(total));
  ParallelFor(n, threads, 1, [&](int64_t begin, int64_t end, int) {
    for (int64_t i = begin; i < end; ++i) {
      const DescriptorBlock& block = images[size_t(i)];
      const Eigen::Matrix<float, kBits, Eigen::Dynamic> projected = Project(block.data, block.count);
      for (int64_t f = 0; f < block.count; ++f) {
        const int64_t slot = image_offsets_[size_t(i)] + f;
        const int32_t word = tree.Quantize(block.data + f * kDim);
        feature_words_[size_t(slot)] = word;
        feature_signatures_[size_t(slot)] = Signature(word, projected.col(f).data());
      }
    }
  });

  // 3. The inverted file, by word then image (a counting sort keeps images in order), and idf.
  word_offsets_.assign(size_t(num_words) + 1, 0);
  for (int32_t w : feature_words_) ++word_offsets_[size_t(w) + 1];
  std::partial_sum(word_offsets_.begin(), word_offsets_.end(), word_offsets_.begin());
  entries_.resize(size_t(total));
  std::vector<int64_t> cursor(word_offsets_.begin(), word_offsets_.end() - 1);
  std::vector<int32_t> images_with_word(size_t(num_words), 0), last_image(size_t(num_words), -1);
  for (int32_t i = 0; i < n; ++i) {
    for (int64_t slot = image_offsets_[size_t(i)]; slot < image_offsets_[size_t(i) + 1]; ++slot) {
      const int32_t w = feature_words_[size_t(slot)];
      entries_[size_t(cursor[size_t(w)]++)] = {i, feature_signatures_[size_t(slot)]};
      if (last_image[size_t(w)] != i) {
        last_image[size_t(w)] = i;
        ++images_with_word[size_t(w)];
      }
    }
  }
  idf2_.assign(size_t(num_words), 0.0f);
  for (int32_t w = 0; w < num_words; ++w) {
    if (images_with_word[size_t(w)] == 0) continue;
    // Smoothed, log(1 + N / N_w): a word in every image keeps a small weight (log 2), so a small
    // capture whose few words all occur everywhere still ranks by its Hamming votes.
    const double idf = std::log1p(double(n) / double(images_with_word[size_t(w)]));
    idf2_[size_t(w)] = float(idf * idf);
  }
  self_similarity_.assign(size_t(n), 0.0);
  for (int32_t i = 0; i < n; ++i) {
    for (int64_t slot = image_offsets_[size_t(i)]; slot < image_offsets_[size_t(i) + 1]; ++slot) {
      self_similarity_[size_t(i)] += idf2_[size_t(feature_words_[size_t(slot)])];
    }
  }
}

Eigen::Matrix<float, InvertedIndex::kBits, Eigen::Dynamic> InvertedIndex::Project(const float* rows,
                                                                                 int64_t count) const {
  Eigen::Matrix<float, kBits, Eigen::Dynamic> projected(kBits, count);
  if (count > 0) projected.noalias() = projection_ * Rows(rows, kDim, count);
  return projected;
}

uint64_t InvertedIndex::Signature(int32_t word, const float* projected) const {
  const float* threshold = &thresholds_[size_t(word) * kBits];
  uint64_t bits = 0;
  for (int b = 0; b < kBits; ++b) bits |= uint64_t(projected[b] > threshold[b]) << b;
  return bits;
}

void InvertedIndex::Score(int32_t q, std::vector<float>* scores) const {
  std::fill(scores->begin(), scores->end(), 0.0f);
  for (int64_t slot = image_offsets_[size_t(q)]; slot < image_offsets_[size_t(q) + 1]; ++slot) {
    const int32_t w = feature_words_[size_t(slot)];
    const float idf2 = idf2_[size_t(w)];
    const uint64_t signature = feature_signatures_[size_t(slot)];
    const Entry* entry = &entries_[size_t(word_offsets_[size_t(w)])];
    const Entry* end = &entries_[0] + word_offsets_[size_t(w) + 1];
    while (entry < end) {
      const int32_t image = entry->image;
      float sum = 0.0f;
      int votes = 0;
      for (; entry < end && entry->image == image; ++entry) {
        const float weight = vote_weight_[__builtin_popcountll(signature ^ entry->signature)];
        sum += weight;
        votes += weight > 0.0f;
      }
      // Burstiness: m votes from one image for one descriptor count as sqrt(m), not m.
      if (votes > 0 && image != q) (*scores)[size_t(image)] += idf2 * sum / std::sqrt(float(votes));
    }
  }
}

void InvertedIndex::Query(int top_k, int32_t* neighbours, float* scores) const {
  const int32_t n = NumImages();
  ParallelFor(n, options_.num_threads, 1, [&](int64_t begin, int64_t end, int) {
    std::vector<float> similarity(static_cast<size_t>(n));
    std::vector<int32_t> order(static_cast<size_t>(n));
    for (int64_t q = begin; q < end; ++q) {
      Score(int32_t(q), &similarity);
      for (int32_t d = 0; d < n; ++d) {
        const double norm = std::sqrt(self_similarity_[size_t(q)] * self_similarity_[size_t(d)]);
        similarity[size_t(d)] = norm > 0.0 ? float(similarity[size_t(d)] / norm) : 0.0f;
      }
      std::iota(order.begin(), order.end(), 0);
      const int keep = std::min<int>(top_k, n);
      std::partial_sort(order.begin(), order.begin() + keep, order.end(), [&](int32_t a, int32_t b) {
        const float sa = similarity[size_t(a)], sb = similarity[size_t(b)];
        return sa > sb || (sa == sb && a < b);
      });
      int32_t* row = neighbours + q * top_k;
      float* row_scores = scores + q * top_k;
      for (int k = 0; k < top_k; ++k) {
        const int32_t d = k < keep ? order[size_t(k)] : -1;
        const bool valid = d >= 0 && d != q && similarity[size_t(d)] > 0.0f;
        row[k] = valid ? d : -1;
        row_scores[k] = valid ? similarity[size_t(d)] : 0.0f;
      }
    }
  });
}

}  // namespace cvis
