// Charts and their places in the atlas. A chart's texels are its view's pixels, scaled: UVs come
// straight from the view's projection, so a chart is never distorted, only resized. Rectangles
// are packed on shelves, tallest first, which wastes little for the many similar small charts a
// smoothed labelling leaves.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "texturing.h"

namespace cvis::texture {

namespace {

// Texels a cell for one unseen face takes per side (the face's triangle fits inside with a
// texel to spare on each side, so bilinear lookups stay in the cell).
constexpr int kUnseenCell = 4;

}  // namespace

std::vector<Chart> BuildCharts(const Mesh& mesh, const std::vector<cvis_mvs_view>& views,
                               const std::vector<int32_t>& face_views,
                               const std::vector<std::array<int64_t, 3>>& neighbours) {
  const int64_t n = mesh.num_faces;
  std::vector<int64_t> chart_of(n, -1);
  std::vector<Chart> charts;
  std::vector<int64_t> stack;
  for (int64_t seed = 0; seed < n; ++seed) {
    if (chart_of[seed] >= 0) continue;
    Chart chart;
    chart.view = face_views[seed];
    const int64_t id = int64_t(charts.size());
    chart_of[seed] = id;
    stack.assign(1, seed);
    while (!stack.empty()) {
      const int64_t f = stack.back();
      stack.pop_back();
      chart.faces.push_back(f);
      if (chart.view < 0) continue;  // unseen faces stay one per chart
      for (int64_t g : neighbours[f]) {
        if (g >= 0 && chart_of[g] < 0 && face_views[g] == chart.view) {
          chart_of[g] = id;
          stack.push_back(g);
        }
      }
    }
    std::sort(chart.faces.begin(), chart.faces.end());
    if (chart.view >= 0) {
      chart.min_x = chart.min_y = 1e300;
      chart.max_x = chart.max_y = -1e300;
      for (int64_t f : chart.faces) {
        for (int k = 0; k < 3; ++k) {
          double u, v, depth;
          Project(views[chart.view], mesh.Vertex(mesh.Corner(f, k)), &u, &v, &depth);
          chart.min_x = std::min(chart.min_x, u);
          chart.max_x = std::max(chart.max_x, u);
          chart.min_y = std::min(chart.min_y, v);
          chart.max_y = std::max(chart.max_y, v);
        }
      }
    }
    charts.push_back(std::move(chart));
  }
  return charts;
}

namespace {

// Places the rectangles on shelves in pages of side page_size, in the given order; false when
// more than max_pages would be needed. Sets page, x, y of each chart.
bool PackShelves(std::vector<Chart>* charts, const std::vector<size_t>& order, int page_size,
                 int max_pages, int32_t* pages_used) {
  int page = 0, x = 0, y = 0, shelf_height = 0;
  for (size_t i : order) {
    Chart& chart = (*charts)[i];
    if (chart.width > page_size || chart.height > page_size) return false;
    if (x + chart.width > page_size) {  // next shelf
      y += shelf_height;
      x = 0;
      shelf_height = 0;
    }
    if (y + chart.height > page_size) {  // next page
      if (++page >= max_pages) return false;
      x = y = shelf_height = 0;
    }
    chart.page = page;
    chart.x = x;
    chart.y = y;
    x += chart.width;
    shelf_height = std::max(shelf_height, chart.height);
  }
  *pages_used = page + 1;
  return true;
}

void SizeCharts(std::vector<Chart>* charts, double scale, int padding) {
  for (Chart& chart : *charts) {
    if (chart.view < 0) {
      chart.width = chart.height = kUnseenCell;
      continue;
    }
    // The box starts on a pixel corner: at one texel per pixel every texel is then one pixel of
    // the view, copied rather than interpolated (interpolating between pixels blurs the texture).
    chart.min_x = std::floor(chart.min_x);
    chart.min_y = std::floor(chart.min_y);
    chart.width = int32_t(std::ceil((chart.max_x - chart.min_x) * scale)) + 2 * padding + 1;
    chart.height = int32_t(std::ceil((chart.max_y - chart.min_y) * scale)) + 2 * padding + 1;
  }
}

}  // namespace

std::pair<double, int32_t> PackCharts(std::vector<Chart>* charts, const cvis_texture_options& options) {
  const int padding = options.padding_px;
  const double page_area = double(options.page_size) * options.page_size * options.max_pages;
  // First guess from the area: shelves fill about 80% of a page.
  double pixel_area = 0;
  for (const Chart& chart : *charts) {
    if (chart.view >= 0) pixel_area += (chart.max_x - chart.min_x + 1) * (chart.max_y - chart.min_y + 1);
  }
  double scale = options.max_texel_per_pixel;
  if (pixel_area > 0) scale = std::min(scale, std::sqrt(0.8 * page_area / pixel_area));
  std::vector<size_t> order(charts->size());
  for (int attempt = 0; attempt < 200; ++attempt) {
    SizeCharts(charts, scale, padding);
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return (*charts)[a].height > (*charts)[b].height;
    });
    int32_t pages = 0;
    if (PackShelves(charts, order, options.page_size, options.max_pages, &pages)) return {scale, pages};
    scale *= 0.93;
  }
  return {0.0, 0};
}

}  // namespace cvis::texture
