// A vocabulary tree (Nister and Stewenius 2006): hierarchical k-means over SIFT descriptors, each
// leaf one visual word. Trained on the capture's own descriptors, so no vocabulary ships with us.
#pragma once

#include <cstdint>
#include <vector>

namespace cvis {

struct VocabularyTreeOptions {
  int branching = 6;        // children per node
  int max_depth = 8;         // levels below the root at most
  int min_node_size = 32;    // fewer training descriptors: the node stays a leaf
  int64_t max_words = 1000;  // leaves are split, largest first, until there are this many
  int kmeans_iterations = 10;
  uint64_t seed = 0;
};

class VocabularyTree {
 public:
  static constexpr int kDim = 128;

  // Trains on count rows of kDim floats: the largest leaf is split by k-means until there are
  // max_words leaves (or none can be split). Deterministic for a seed (each node's k-means
  // draws from its own generator state). An empty training set gives a single word.
  static VocabularyTree Train(const float* descriptors, int64_t count,
                              const VocabularyTreeOptions& options);

  int32_t NumWords() const { return num_words_; }
  int32_t Depth() const { return depth_; }

  // The word (leaf index in [0, NumWords())) a descriptor falls into: the nearest child
  // centroid at every level, from the root down.
  int32_t Quantize(const float* descriptor) const;

  // The centroid of a word's leaf (kDim floats).
  const float* WordCentroid(int32_t word) const;

 private:
  struct Node {
    int32_t first_child = -1;  // children are contiguous: first_child .. first_child + count - 1
    int32_t num_children = 0;
    int32_t word = -1;         // leaves only
  };

  std::vector<Node> nodes_;         // node 0 is the root
  std::vector<float> centroids_;    // nodes_.size() x kDim
  std::vector<float> norms2_;       // squared centroid lengths
  std::vector<int32_t> word_node_;  // word -> its leaf node
  int32_t num_words_ = 0;
  int32_t depth_ = 0;
};

}  // namespace cvis
