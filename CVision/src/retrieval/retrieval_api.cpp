// C entry points of image retrieval: option checks, the training sample, the handle.
#include <algorithm>
#include <memory>
#include <vector>

#include "../../include/cvis_retrieval.h"
#include "../feature/features.h"
#include "../util/status.h"
#include "inverted_index.h"
#include "vocabulary_tree.h"

struct cvis_retrieval_index {
  cvis::VocabularyTree tree;
  std::unique_ptr<cvis::InvertedIndex> index;
};

namespace cvis {
namespace {

constexpr int kDim = VocabularyTree::kDim;

cvis_status CheckOptions(const cvis_retrieval_options& o) {
  if (o.branching < 2 || o.max_depth < 1 || o.descriptors_per_word < 1 || o.min_node_size < 1 || o.max_training_descriptors < 1 ||
      o.kmeans_iterations < 1 || o.max_hamming_distance < 0 || o.max_hamming_distance > 64 ||
      !(o.hamming_sigma > 0.0f) || o.num_threads < 1) {
    return Fail(CVIS_INVALID_ARGUMENT,
                "cvis_retrieval_options: branching >= 2, max_depth >= 1, descriptors_per_word >= 1, min_node_size >= 1, "
                "max_training_descriptors >= 1, kmeans_iterations >= 1, max_hamming_distance in "
                "[0, 64], hamming_sigma > 0, num_threads >= 1");
  }
  return CVIS_OK;
}

// Up to max_total rows spread evenly over the images: each image gives an equal share, taken
// at an even stride through its descriptors, so no image and no part of an image dominates.
std::vector<float> TrainingSample(const std::vector<DescriptorBlock>& images, int64_t max_total) {
  int64_t total = 0;
  for (const DescriptorBlock& block : images) total += block.count;
  std::vector<float> sample;
  if (images.empty() || total == 0) return sample;
  // Images with fewer descriptors than the share leave theirs to the others.
  std::vector<int64_t> counts;
  for (const DescriptorBlock& block : images) counts.push_back(block.count);
  std::sort(counts.begin(), counts.end());
  int64_t share = max_total, remaining = max_total;
  for (size_t k = 0; k < counts.size(); ++k) {
    share = remaining / int64_t(counts.size() - k);
    if (counts[k] >= share) break;
    remaining -= counts[k];
  }
  for (const DescriptorBlock& block : images) {
    const int64_t take = std::min(block.count, std::max<int64_t>(1, share));
    for (int64_t j = 0; j < take && block.count > 0; ++j) {
      const float* row = block.data + (j * block.count / take) * kDim;
      sample.insert(sample.end(), row, row + kDim);
    }
  }
  return sample;
}

cvis_status Build(const std::vector<DescriptorBlock>& images, const cvis_retrieval_options* options_in,
                  cvis_retrieval_index** out) {
  if (out == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_retrieval_build: null output");
  *out = nullptr;
  cvis_retrieval_options options;
  cvis_retrieval_options_default(&options);
  if (options_in != nullptr) options = *options_in;
  if (cvis_status status = CheckOptions(options); status != CVIS_OK) return status;

  const std::vector<float> training = TrainingSample(images, options.max_training_descriptors);
  const int64_t training_count = int64_t(training.size()) / kDim;
  VocabularyTreeOptions tree_options;
  tree_options.branching = options.branching;
  tree_options.max_depth = options.max_depth;
  tree_options.min_node_size = options.min_node_size;
  int64_t total = 0;
  for (const DescriptorBlock& block : images) total += block.count;
  tree_options.max_words = std::max<int64_t>(1, total / options.descriptors_per_word);
  tree_options.kmeans_iterations = options.kmeans_iterations;
  tree_options.seed = options.seed;
  auto result = std::make_unique<cvis_retrieval_index>();
  result->tree = VocabularyTree::Train(training.data(), training_count, tree_options);
  InvertedIndexOptions index_options;
  index_options.max_hamming_distance = options.max_hamming_distance;
  index_options.hamming_sigma = options.hamming_sigma;
  index_options.seed = options.seed;
  index_options.num_threads = options.num_threads;
  result->index = std::make_unique<InvertedIndex>(result->tree, training.data(), training_count, images,
                                                  index_options);
  *out = result.release();
  return CVIS_OK;
}

}  // namespace
}  // namespace cvis

extern "C" void cvis_retrieval_options_default(cvis_retrieval_options* options) {
  if (options == nullptr) return;
  options->branching = 6;
  options->max_depth = 8;
  options->descriptors_per_word = 128;
  options->min_node_size = 32;
  options->max_training_descriptors = 250000;
  options->kmeans_iterations = 10;
  options->max_hamming_distance = 24;
  options->hamming_sigma = 16.0f;
  options->seed = 0;
  options->num_threads = 1;
}

extern "C" cvis_status cvis_retrieval_build(const cvis_features* const* images, int32_t num_images,
                                            const cvis_retrieval_options* options,
                                            cvis_retrieval_index** out) {
  using namespace cvis;
  return Guard([&] {
    if (num_images < 0 || (num_images > 0 && images == nullptr)) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_retrieval_build: null or negative image list");
    }
    std::vector<DescriptorBlock> blocks;
    for (int32_t i = 0; i < num_images; ++i) {
      if (images[i] == nullptr) return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_retrieval_build: image ", i, " is null"));
      blocks.push_back({images[i]->descriptors.data(), images[i]->Count()});
    }
    return Build(blocks, options, out);
  });
}

extern "C" cvis_status cvis_retrieval_build_from_descriptors(const float* descriptors, const int32_t* counts,
                                                             int32_t num_images,
                                                             const cvis_retrieval_options* options,
                                                             cvis_retrieval_index** out) {
  using namespace cvis;
  return Guard([&] {
    if (num_images < 0 || (num_images > 0 && counts == nullptr)) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_retrieval_build_from_descriptors: null or negative counts");
    }
    std::vector<DescriptorBlock> blocks;
    int64_t offset = 0;
    for (int32_t i = 0; i < num_images; ++i) {
      if (counts[i] < 0) return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_retrieval_build_from_descriptors: count ", i, " < 0"));
      if (counts[i] > 0 && descriptors == nullptr) {
        return Fail(CVIS_INVALID_ARGUMENT, "cvis_retrieval_build_from_descriptors: null descriptors");
      }
      blocks.push_back({descriptors + offset * kDim, counts[i]});
      offset += counts[i];
    }
    return Build(blocks, options, out);
  });
}

extern "C" void cvis_retrieval_destroy(cvis_retrieval_index* index) { delete index; }

extern "C" int32_t cvis_retrieval_num_images(const cvis_retrieval_index* index) {
  return index ? index->index->NumImages() : 0;
}

extern "C" int32_t cvis_retrieval_num_words(const cvis_retrieval_index* index) {
  return index ? index->tree.NumWords() : 0;
}

extern "C" cvis_status cvis_retrieval_query(const cvis_retrieval_index* index, int32_t top_k,
                                            int32_t* neighbours, float* scores) {
  using namespace cvis;
  return Guard([&] {
    if (index == nullptr || top_k < 1) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_retrieval_query: null index or top_k < 1");
    }
    if (index->index->NumImages() > 0 && (neighbours == nullptr || scores == nullptr)) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_retrieval_query: null output");
    }
    index->index->Query(top_k, neighbours, scores);
    return CVIS_OK;
  });
}
