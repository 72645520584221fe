// Geometry of triangle surfaces for the cloud comparison: uniform sampling by area, exact
// point-to-triangle distance, and the grid cells a triangle passes through.
#pragma once

#include <cstdint>
#include <vector>

#include "cell_grid.h"

namespace cvis {

// Total area of the triangles (points num_points x 3, triangles num_triangles x 3).
double SurfaceArea(const float* points, const int32_t* triangles, int64_t num_triangles);

// Points spread uniformly by area over the triangles, about one per spacing^2 of surface: each
// triangle gets area / spacing^2 samples rounded up or down at random, at uniformly random
// barycentric positions. Each triangle draws from its own generator seeded by (seed, triangle
// index), so the samples do not depend on num_threads. Returns x y z per sample.
std::vector<float> SampleSurface(const float* points, const int32_t* triangles,
                                 int64_t num_triangles, double spacing, uint64_t seed,
                                 int num_threads);

// Squared distance from p to the triangle (a, b, c), degenerate triangles included.
double PointTriangleDistanceSquared(const double p[3], const double a[3], const double b[3],
                                    const double c[3]);

// Appends the keys of grid cells that together contain every point of the triangle (a superset
// of the cells it passes through), each once.
void TriangleCells(const CellGrid& grid, const double a[3], const double b[3], const double c[3],
                   std::vector<uint64_t>* keys);

}  // namespace cvis
