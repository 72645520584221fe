/* Image retrieval within one capture: which images look most alike, from their SIFT descriptors.
 *
 * A vocabulary tree (Nister and Stewenius 2006: hierarchical k-means, here best first: the
 * largest leaf is split next) is trained on a subsample of the capture's own descriptors; every
 * descriptor of every image is quantised to a word (a leaf) and given a 64-bit Hamming-embedding
 * signature (Jegou, Douze and Schmid 2008: a fixed random orthogonal projection compared against
 * the word's per-dimension medians). Two images are as similar as the descriptors they share
 * within a word and a Hamming distance, weighted by the word's idf squared (smoothed,
 * log(1 + N / N_w)) and by exp(-h^2 / sigma^2), with burstiness normalisation (a descriptor that
 * matches m in the other image counts 1 / sqrt(m)), the score divided by the square root of both
 * images' self-similarities. Deterministic for a given seed, whatever the thread count. */
#ifndef CVIS_RETRIEVAL_H
#define CVIS_RETRIEVAL_H

#include "cvis_core.h"
#include "cvis_feature.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct cvis_retrieval_options {
  int32_t branching;                /* default 6: children of every node of the tree */
  int32_t max_depth;                /* default 8: levels below the root at most */
  int32_t descriptors_per_word;     /* default 128: the tree gets one word per this many of the
                                       capture's descriptors (a small vocabulary, as Hamming
                                       embedding tells descriptors of one word apart) */
  int32_t min_node_size;            /* default 32: a node trained on fewer descriptors is not
                                       split, so each word's medians rest on enough samples */
  int32_t max_training_descriptors; /* default 250000: training sample, spread evenly over images */
  int32_t kmeans_iterations;        /* default 10 per node */
  int32_t max_hamming_distance;     /* default 24 of 64 bits: signatures further apart do not vote */
  float hamming_sigma;              /* default 16: vote weight exp(-h^2 / sigma^2) */
  uint64_t seed;                    /* default 0: k-means seeding and the projection */
  int32_t num_threads;              /* default 1 */
} cvis_retrieval_options;

void cvis_retrieval_options_default(cvis_retrieval_options* options);

/* A trained vocabulary with every image of the capture indexed. */
typedef struct cvis_retrieval_index cvis_retrieval_index;

/* Trains the vocabulary on the images' descriptors and indexes them all (image i = images[i]). */
cvis_status cvis_retrieval_build(const cvis_features* const* images, int32_t num_images,
                                 const cvis_retrieval_options* options, cvis_retrieval_index** out);

/* The same from descriptors in memory: counts[i] rows of 128 floats (unit length) for image i,
 * all images concatenated in descriptors. */
cvis_status cvis_retrieval_build_from_descriptors(const float* descriptors, const int32_t* counts,
                                                  int32_t num_images,
                                                  const cvis_retrieval_options* options,
                                                  cvis_retrieval_index** out);

void cvis_retrieval_destroy(cvis_retrieval_index* index);

int32_t cvis_retrieval_num_images(const cvis_retrieval_index* index);
/* Words (leaves) of the trained vocabulary. */
int32_t cvis_retrieval_num_words(const cvis_retrieval_index* index);

/* For every image its top_k most similar other images, most similar first (ties by lower index):
 * neighbours and scores each hold num_images x top_k values; rows with fewer candidates than
 * top_k (images sharing nothing) are padded with -1 and score 0. Scores are in [0, 1]-ish
 * (normalised by self-similarity), comparable across rows. */
cvis_status cvis_retrieval_query(const cvis_retrieval_index* index, int32_t top_k,
                                 int32_t* neighbours, float* scores);

#ifdef __cplusplus
}
#endif
#endif
