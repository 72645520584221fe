// Hierarchical k-means training (best first: the largest leaf is split next, until the tree has
// its words) and descent. Each node's k-means is OpenCV's (k-means++ seeding), with the
// thread-local generator reset from the seed and the node's index, so the tree depends on the
// seed only, not on OpenCV's thread count.
#include "vocabulary_tree.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include <opencv2/core.hpp>

#include "../util/random.h"

namespace cvis {

VocabularyTree VocabularyTree::Train(const float* descriptors, int64_t count,
                                     const VocabularyTreeOptions& options) {
  VocabularyTree tree;
  tree.nodes_.emplace_back();
  tree.centroids_.assign(kDim, 0.0f);

  // Leaves waiting to be split, largest first (ties: the older node), so the tree spends its
  // words where the descriptors are dense and leaves end up of similar size.
  struct Leaf {
    int32_t node;
    int32_t depth;
    std::vector<int64_t> members;
  };
  std::vector<Leaf> leaves;
  auto larger = [](const Leaf& a, const Leaf& b) {
    return a.members.size() != b.members.size() ? a.members.size() < b.members.size() : a.node > b.node;
  };
  std::vector<int64_t> all(size_t(std::max<int64_t>(0, count)));
  for (int64_t i = 0; i < count; ++i) all[size_t(i)] = i;
  leaves.push_back({0, 0, std::move(all)});

  const int branching = std::max(2, options.branching);
  const int64_t min_size = std::max<int64_t>(options.min_node_size, branching);
  std::vector<Leaf> finished;  // leaves that cannot be split
  while (!leaves.empty() && int64_t(leaves.size() + finished.size()) < options.max_words) {
    std::pop_heap(leaves.begin(), leaves.end(), larger);
    Leaf leaf = std::move(leaves.back());
    leaves.pop_back();
    const int64_t size = int64_t(leaf.members.size());
    if (leaf.depth >= options.max_depth || size < min_size) {
      finished.push_back(std::move(leaf));
      continue;
    }
    cv::Mat samples(int(size), kDim, CV_32F);
    for (int64_t r = 0; r < size; ++r) {
      std::memcpy(samples.ptr<float>(int(r)), descriptors + leaf.members[size_t(r)] * kDim, kDim * sizeof(float));
    }
    cv::Mat labels, centers;
    cv::theRNG().state = SplitMix64::Mix(options.seed ^ (uint64_t(leaf.node) * SplitMix64::kGolden)) | 1u;
    cv::kmeans(samples, branching, labels,
               cv::TermCriteria(cv::TermCriteria::COUNT + cv::TermCriteria::EPS,
                                std::max(1, options.kmeans_iterations), 1e-4),
               1, cv::KMEANS_PP_CENTERS, centers);
    std::vector<std::vector<int64_t>> groups(static_cast<size_t>(branching));
    for (int64_t r = 0; r < size; ++r) groups[size_t(labels.at<int>(int(r)))].push_back(leaf.members[size_t(r)]);
    // Identical descriptors (or a cluster holding everything) cannot be split further.
    const int non_empty = int(std::count_if(groups.begin(), groups.end(), [](const auto& g) { return !g.empty(); }));
    if (non_empty < 2) {
      finished.push_back(std::move(leaf));
      continue;
    }
    const int32_t first_child = int32_t(tree.nodes_.size());
    for (int c = 0; c < branching; ++c) {
      if (groups[size_t(c)].empty()) continue;
      const int32_t child = int32_t(tree.nodes_.size());
      tree.nodes_.emplace_back();
      tree.centroids_.insert(tree.centroids_.end(), centers.ptr<float>(c), centers.ptr<float>(c) + kDim);
      tree.depth_ = std::max(tree.depth_, leaf.depth + 1);
      leaves.push_back({child, leaf.depth + 1, std::move(groups[size_t(c)])});
      std::push_heap(leaves.begin(), leaves.end(), larger);
    }
    tree.nodes_[size_t(leaf.node)].first_child = first_child;
    tree.nodes_[size_t(leaf.node)].num_children = int32_t(tree.nodes_.size()) - first_child;
  }

  // Words in node order, so their numbering does not depend on the heap's.
  for (size_t n = 0; n < tree.nodes_.size(); ++n) {
    if (tree.nodes_[n].num_children > 0) continue;
    tree.nodes_[n].word = tree.num_words_++;
    tree.word_node_.push_back(int32_t(n));
  }
  tree.norms2_.resize(tree.nodes_.size());
  for (size_t n = 0; n < tree.nodes_.size(); ++n) {
    const float* c = &tree.centroids_[n * kDim];
    float sum = 0.0f;
    for (int d = 0; d < kDim; ++d) sum += c[d] * c[d];
    tree.norms2_[n] = sum;
  }
  return tree;
}

int32_t VocabularyTree::Quantize(const float* descriptor) const {
  int32_t node = 0;
  while (nodes_[size_t(node)].num_children > 0) {
    const Node& current = nodes_[size_t(node)];
    int32_t best = current.first_child;
    float best_distance = std::numeric_limits<float>::infinity();
    for (int32_t child = current.first_child; child < current.first_child + current.num_children; ++child) {
      const float* c = &centroids_[size_t(child) * kDim];
      float dot = 0.0f;
      for (int d = 0; d < kDim; ++d) dot += c[d] * descriptor[d];
      // |x - c|^2 up to the constant |x|^2.
      const float distance = norms2_[size_t(child)] - 2.0f * dot;
      if (distance < best_distance) {
        best_distance = distance;
        best = child;
      }
    }
    node = best;
  }
  return nodes_[size_t(node)].word;
}

const float* VocabularyTree::WordCentroid(int32_t word) const {
  return &centroids_[size_t(word_node_[size_t(word)]) * kDim];
}

}  // namespace cvis
