// The texturing pipeline's pieces, in the order cvis_texture_mesh runs them: candidate views per
// face (visibility), one view per face (view selection), charts and their places in the atlas
// (packing), colour corrections per chart or per view (seam levelling).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include <opencv2/core.hpp>

#include "../../include/cvis_texture.h"

namespace cvis::texture {

// The mesh being textured, as the caller gave it.
struct Mesh {
  int64_t num_vertices = 0;
  const float* vertices = nullptr;  // x y z per vertex
  int64_t num_faces = 0;
  const int32_t* faces = nullptr;   // three vertex indices per face

  std::array<double, 3> Vertex(int64_t v) const {
    return {vertices[3 * v], vertices[3 * v + 1], vertices[3 * v + 2]};
  }
  int32_t Corner(int64_t f, int k) const { return faces[3 * f + k]; }
};

// A view that sees a face, how well (the face's projected area in pixels) and the face's mean
// colour (RGB) in it, which seam levelling compares between views.
struct Candidate {
  int32_t view;
  float quality;
  std::array<float, 3> color;
};

// Pixel position of world point x in view (COLMAP convention: top-left corner at 0), and its
// depth; depth <= 0 when x is behind the camera.
void Project(const cvis_mvs_view& view, const std::array<double, 3>& x, double* u, double* v,
             double* depth);

// For each face, the views that see it unoccluded, facing them within min_view_cos, with all
// three corners inside the image (and inside the view's mask when masks[view] is not empty),
// best first and at most max_views_per_face. Each view's image (image_paths) is decoded once
// for the faces' mean colours. Throws on an image that cannot be decoded.
std::vector<std::vector<Candidate>> FindCandidateViews(const Mesh& mesh,
                                                       const std::vector<cvis_mvs_view>& views,
                                                       const char* const* image_paths,
                                                       const std::vector<cv::Mat>& masks,
                                                       const cvis_texture_options& options);

// Bilinear lookup of an 8-bit BGR image at continuous pixel position (x, y) (pixel centres at
// +0.5), clamped at the border; returns RGB.
std::array<float, 3> SampleBGR(const cv::Mat& image, double x, double y);

// Face f's mean colour in view (its candidate's), or null when view is not among its candidates.
const std::array<float, 3>* ColorIn(const std::vector<std::vector<Candidate>>& candidates, int64_t f,
                                    int32_t view);

// Faces sharing an edge with each face (up to three; -1 where the edge is open or shared by
// more than two faces).
std::vector<std::array<int64_t, 3>> FaceNeighbours(const Mesh& mesh);

// One view per face (-1 for a face without candidates): the best view, then rounds of iterated
// conditional modes on data cost 1 - quality / best quality plus smoothness per neighbour that
// chose another view.
std::vector<int32_t> SelectViews(const std::vector<std::vector<Candidate>>& candidates,
                                 const std::vector<std::array<int64_t, 3>>& neighbours,
                                 const cvis_texture_options& options);

// A connected set of faces textured from one view, and its rectangle in the atlas.
struct Chart {
  int32_t view = -1;               // -1: the cell of one face no view sees
  std::vector<int64_t> faces;
  double min_x = 0, min_y = 0;     // the faces' projections' bounding box in the view's pixels
  double max_x = 0, max_y = 0;
  int32_t width = 0, height = 0;   // texels, padding included
  int32_t page = 0, x = 0, y = 0;  // where the rectangle sits in the atlas
};

// Charts of edge-connected faces with the same view; every unseen face is a chart of its own.
std::vector<Chart> BuildCharts(const Mesh& mesh, const std::vector<cvis_mvs_view>& views,
                               const std::vector<int32_t>& face_views,
                               const std::vector<std::array<int64_t, 3>>& neighbours);

// Sizes every chart at scale texels per pixel and packs the rectangles into pages (shelves,
// tallest first); the largest scale up to options.max_texel_per_pixel at which they fit into
// options.max_pages pages. Returns the scale and the number of pages used.
std::pair<double, int32_t> PackCharts(std::vector<Chart>* charts, const cvis_texture_options& options);

// Pixel position in view of chart-local texel coordinates and back: texel (0, 0)'s corner is the
// chart's padding corner.
inline double TexelToPixel(double texel, double min, double scale, int padding) {
  return min + (texel - padding) / scale;
}
inline double PixelToTexel(double pixel, double min, double scale, int padding) {
  return (pixel - min) * scale + padding;
}

// Offsets (RGB, added to every texel a view gives the atlas) that make the colours on both sides
// of each seam agree in the least-squares sense, with a pull towards zero of weight
// options.seam_regularization. One offset per view, not per chart: exposure and white balance
// belong to a photo, and thousands of seam samples per view average out what is not exposure (a
// face's colour differs between two views also where the geometry is a little off; per-chart
// offsets, fitted to a few samples each, take that noise for exposure; docs/benchmarks.md).
// A sample is one face beside a seam between views a and b: its mean colour in
// a and in b (the same surface in both).
struct SeamSample {
  int64_t view_a, view_b;
  std::array<float, 3> color_a, color_b;
};
std::vector<std::array<float, 3>> LevelSeams(int64_t num_views, const std::vector<SeamSample>& samples,
                                             double regularization);

// Local seam levelling, after the global offsets (one per view, added to every colour of that
// view): a correction per (chart, vertex) that makes the colours on both sides of every seam agree
// and brings each chart to the colour its faces' candidate views agree on (their levelled mean
// colours over each face, weighing their projected areas), smoothed within a chart at sigma
// pixels of its view.
struct LocalLevelling {
  std::vector<std::vector<int64_t>> vertices;                  // per chart, its vertices, sorted
  std::vector<std::vector<std::array<float, 3>>> corrections;  // per chart, per vertex there
};
LocalLevelling LevelSeamsLocally(const Mesh& mesh, const std::vector<cvis_mvs_view>& views,
                                 const std::vector<Chart>& charts, const std::vector<int64_t>& chart_of,
                                 const std::vector<std::array<int64_t, 3>>& neighbours,
                                 const std::vector<std::vector<Candidate>>& candidates,
                                 const std::vector<std::array<float, 3>>& offsets, double sigma,
                                 int num_threads);

// A chart's corrections over its rectangle (width x height, row-major): interpolated over the
// faces' texels at their uvs (six per face, in [0, 1] of a page of page_size texels) and carried
// on from the nearest face over the rest.
std::vector<std::array<float, 3>> CorrectionTexels(const Mesh& mesh, const Chart& chart,
                                                   const std::vector<int64_t>& vertices,
                                                   const std::vector<std::array<float, 3>>& corrections,
                                                   const float* uvs, int page_size);

}  // namespace cvis::texture
