// The capture's images indexed by visual word, each descriptor with a 64-bit Hamming-embedding
// signature (Jegou, Douze and Schmid 2008), and all-against-all scoring with idf weights and
// burstiness normalisation (Arandjelovic and Zisserman 2014), as COLMAP's visual index scores.
#pragma once

#include <cstdint>
#include <vector>

#include <Eigen/Core>

#include "vocabulary_tree.h"

namespace cvis {

struct InvertedIndexOptions {
  int max_hamming_distance = 24;  // of 64 bits
  float hamming_sigma = 16.0f;
  uint64_t seed = 0;              // of the random orthogonal projection
  int num_threads = 1;
};

// One image's descriptors: count rows of 128 floats.
struct DescriptorBlock {
  const float* data = nullptr;
  int64_t count = 0;
};

class InvertedIndex {
 public:
  static constexpr int kBits = 64;
  static constexpr int kDim = VocabularyTree::kDim;

  // Learns the per-word medians from the training descriptors, then indexes every image.
  InvertedIndex(const VocabularyTree& tree, const float* training, int64_t training_count,
                const std::vector<DescriptorBlock>& images, const InvertedIndexOptions& options);

  int32_t NumImages() const { return int32_t(image_offsets_.size()) - 1; }

  // For each image its top_k most similar other images and their scores (row-major
  // NumImages() x top_k; -1 and 0 pad rows with fewer candidates).
  void Query(int top_k, int32_t* neighbours, float* scores) const;

 private:
  // Projection of each row (count x kDim) to kBits values.
  Eigen::Matrix<float, kBits, Eigen::Dynamic> Project(const float* rows, int64_t count) const;
  uint64_t Signature(int32_t word, const float* projected) const;
  // Similarities of image q to every image (unnormalised).
  void Score(int32_t q, std::vector<float>* scores) const;

  struct Entry {
    int32_t image;
    uint64_t signature;
  };

  InvertedIndexOptions options_;
  Eigen::Matrix<float, kBits, kDim> projection_;
  std::vector<float> thresholds_;        // words x kBits medians
  std::vector<float> idf2_;              // per word: log(1 + N / N_w)^2
  std::vector<int64_t> word_offsets_;    // postings of word w: entries_[word_offsets_[w] ..)
  std::vector<Entry> entries_;           // sorted by word, then image
  std::vector<int64_t> image_offsets_;   // features of image i: [image_offsets_[i] ..)
  std::vector<int32_t> feature_words_;
  std::vector<uint64_t> feature_signatures_;
  std::vector<double> self_similarity_;  // per image: sum of idf^2 over its descriptors
  float vote_weight_[kBits + 1];
};

}  // namespace cvis
