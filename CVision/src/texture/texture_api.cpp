// cvis_texture_mesh: candidate views, view selection, charts, packing, seam levelling (per-view
// offsets and local corrections, both solved from the candidates' face colours, before any
// texel), then sampling the views into the atlas with both added, one view image in memory per
// thread.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <memory>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "../io/image_io.h"
#include "../io/image_write.h"
#include "../util/buffer.h"
#include "../util/parallel.h"
#include "../util/status.h"
#include "texturing.h"

struct cvis_texture_atlas {
  int32_t page_size = 0;
  std::vector<std::vector<uint8_t>> pages;  // RGB
  std::vector<float> uvs;                   // 6 per face
  std::vector<int32_t> face_pages;
  std::vector<int32_t> face_views;
  int64_t num_charts = 0;
  double scale = 0;
};

extern "C" void cvis_texture_options_default(cvis_texture_options* options) {
  options->page_size = 4096;
  options->max_pages = 1;
  options->padding_px = 4;
  // Two texels per image pixel where the page has room: the atlas is resampled again when it is
  // drawn, and at one texel per pixel the two resamplings blur (lower levels' pages fill before
  // that; docs/benchmarks.md).
  options->max_texel_per_pixel = 2.0;
  options->min_view_cos = 0.1;
  options->smoothness = 1.0;
  options->smoothing_iterations = 10;
  options->max_views_per_face = 8;
  // Local levelling: one offset per view cannot follow shading that changes along a seam, and
  // the renders come closer to the photos with it (docs/benchmarks.md).
  options->level_seams = 2;
  options->seam_regularization = 0.1;
  // The smallest scale that still averages a finest mesh's neighbouring faces, one pixel: every
  // wider one rendered further from the photos (docs/benchmarks.md).
  options->local_seam_sigma_px = 1.0;
  options->num_threads = 2;
}

namespace cvis::texture {

std::array<float, 3> SampleBGR(const cv::Mat& image, double x, double y) {
  const double fx = std::clamp(x - 0.5, 0.0, double(image.cols - 1));
  const double fy = std::clamp(y - 0.5, 0.0, double(image.rows - 1));
  const int x0 = int(fx), y0 = int(fy);
  const int x1 = std::min(x0 + 1, image.cols - 1), y1 = std::min(y0 + 1, image.rows - 1);
  const double ax = fx - x0, ay = fy - y0;
  std::array<float, 3> rgb{};
  for (int c = 0; c < 3; ++c) {
    const double top = (1 - ax) * image.at<cv::Vec3b>(y0, x0)[c] + ax * image.at<cv::Vec3b>(y0, x1)[c];
    const double bottom = (1 - ax) * image.at<cv::Vec3b>(y1, x0)[c] + ax * image.at<cv::Vec3b>(y1, x1)[c];
    rgb[2 - c] = float((1 - ay) * top + ay * bottom);
  }
  return rgb;
}

namespace {

cvis_status ValidateOptions(const cvis_texture_options& o) {
  if (o.page_size < 64 || o.page_size > 16384 || o.max_pages < 1 || o.max_pages > 256 ||
      o.padding_px < 0 || o.padding_px > 64 || !(o.max_texel_per_pixel > 0) || o.min_view_cos < -1 ||
      o.min_view_cos > 1 || o.smoothness < 0 || o.smoothing_iterations < 0 || o.max_views_per_face < 1 ||
      o.seam_regularization <= 0 || o.num_threads < 1 || o.level_seams < 0 || o.level_seams > 2 ||
      !(o.local_seam_sigma_px >= 0)) {
    return Fail(CVIS_INVALID_ARGUMENT, "cvis_texture_mesh: an option is out of range");
  }
  return CVIS_OK;
}

// Seam samples from the faces on either side of every edge between two textured charts: each
// face's mean colour in its own chart's view against the other chart's, where the face is a
// candidate of both; a sample is between the two views.
std::vector<SeamSample> CollectSeamSamples(const Mesh& mesh, const std::vector<Chart>& charts,
                                           const std::vector<int64_t>& chart_of,
                                           const std::vector<std::array<int64_t, 3>>& neighbours,
                                           const std::vector<std::vector<Candidate>>& candidates) {
  std::vector<SeamSample> samples;
  for (int64_t f = 0; f < mesh.num_faces; ++f) {
    for (int k = 0; k < 3; ++k) {
      const int64_t g = neighbours[f][k];
      if (g < 0) continue;
      const int64_t a = chart_of[f], b = chart_of[g];
      if (a == b || charts[a].view < 0 || charts[b].view < 0) continue;
      // Face f, beside chart b: its colour in a's view and in b's (each side adds its own face).
      const auto* own = ColorIn(candidates, f, charts[a].view);
      const auto* other = ColorIn(candidates, f, charts[b].view);
      if (own != nullptr && other != nullptr) samples.push_back({charts[a].view, charts[b].view, *own, *other});
    }
  }
  return samples;
}

}  // namespace
}  // namespace cvis::texture

extern "C" cvis_status cvis_texture_mesh(int64_t num_vertices, const float* vertices, int64_t num_faces,
                                         const int32_t* faces, const uint8_t* vertex_colors,
                                         int32_t num_views, const cvis_mvs_view* views,
                                         const char* const* image_paths, const char* const* mask_paths,
                                         const cvis_texture_options* options, cvis_texture_atlas** out) {
  using namespace cvis;
  using namespace cvis::texture;
  return Guard([&]() -> cvis_status {
    if (out == nullptr || options == nullptr || (num_vertices > 0 && vertices == nullptr) ||
        (num_faces > 0 && faces == nullptr) || (num_views > 0 && (views == nullptr || image_paths == nullptr))) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_texture_mesh: null argument");
    }
    *out = nullptr;
    if (cvis_status s = ValidateOptions(*options); s != CVIS_OK) return s;
    if (num_faces < 1 || num_vertices < 3 || num_views < 0 || num_vertices > (int64_t(1) << 31)) {
      return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_texture_mesh: ", num_vertices, " vertices, ", num_faces,
                                             " faces, ", num_views, " views"));
    }
    for (int64_t i = 0; i < 3 * num_faces; ++i) {
      if (faces[i] < 0 || faces[i] >= num_vertices) {
        return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_texture_mesh: face ", i / 3, " has vertex ", faces[i],
                                               " of ", num_vertices));
      }
    }
    Mesh mesh{num_vertices, vertices, num_faces, faces};
    std::vector<cvis_mvs_view> view_list(views, views + num_views);
    std::vector<cv::Mat> masks(num_views);
    for (int32_t v = 0; v < num_views; ++v) {
      if (mask_paths == nullptr || mask_paths[v] == nullptr) continue;
      if (cvis_status s = DecodeMask(mask_paths[v], &masks[v]); s != CVIS_OK) return s;
      if (masks[v].cols != views[v].width || masks[v].rows != views[v].height) {
        return Fail(CVIS_INVALID_ARGUMENT, Str(BaseName(mask_paths[v]), ": mask is ", masks[v].cols, "x",
                                               masks[v].rows, " but its view is ", views[v].width, "x",
                                               views[v].height));
      }
    }

    const auto candidates = FindCandidateViews(mesh, view_list, image_paths, masks, *options);
    const auto neighbours = FaceNeighbours(mesh);
    const std::vector<int32_t> face_views = SelectViews(candidates, neighbours, *options);
    std::vector<Chart> charts = BuildCharts(mesh, view_list, face_views, neighbours);
    const auto [scale, num_pages] = PackCharts(&charts, *options);
    if (num_pages == 0) {
      return Fail(CVIS_LIMIT_EXCEEDED, Str("cvis_texture_mesh: ", charts.size(), " charts do not fit into ",
                                           options->max_pages, " pages of ", options->page_size, " texels"));
    }

    auto atlas = std::make_unique<cvis_texture_atlas>();
    const int size = options->page_size;
    const int padding = options->padding_px;
    atlas->page_size = size;
    atlas->scale = scale;
    atlas->num_charts = int64_t(charts.size());
    atlas->pages.assign(num_pages, std::vector<uint8_t>(size_t(size) * size * 3, 0));
    atlas->uvs.assign(size_t(6 * num_faces), 0.0f);
    atlas->face_pages.assign(num_faces, 0);
    atlas->face_views = face_views;
    std::vector<int64_t> chart_of(num_faces, -1);
    std::vector<std::vector<size_t>> charts_of_view(num_views);
    for (size_t c = 0; c < charts.size(); ++c) {
      for (int64_t f : charts[c].faces) chart_of[f] = int64_t(c);
      if (charts[c].view >= 0) charts_of_view[charts[c].view].push_back(c);
    }

    // UVs: a textured face's corners where its view projects them; an unseen face's corners in
    // its cell, a texel in from each side.
    for (const Chart& chart : charts) {
      for (int64_t f : chart.faces) {
        atlas->face_pages[f] = chart.page;
        for (int k = 0; k < 3; ++k) {
          double tx, ty;
          if (chart.view >= 0) {
            double u, v, depth;
            Project(view_list[chart.view], mesh.Vertex(mesh.Corner(f, k)), &u, &v, &depth);
            tx = chart.x + PixelToTexel(u, chart.min_x, scale, padding);
            ty = chart.y + PixelToTexel(v, chart.min_y, scale, padding);
          } else {
            tx = chart.x + (k == 1 ? chart.width - 1 : 1);
            ty = chart.y + (k == 2 ? chart.height - 1 : 1);
          }
          atlas->uvs[6 * f + 2 * k] = float(tx / size);
          atlas->uvs[6 * f + 2 * k + 1] = float(ty / size);
        }
      }
    }

    // Unseen faces: the mean of their vertex colours (the dense cloud's colour), not a flat fill.
    for (const Chart& chart : charts) {
      if (chart.view >= 0) continue;
      std::array<float, 3> mean{128, 128, 128};
      if (vertex_colors != nullptr) {
        const int64_t f = chart.faces[0];
        for (int c = 0; c < 3; ++c) {
          mean[c] = (float(vertex_colors[3 * mesh.Corner(f, 0) + c]) + vertex_colors[3 * mesh.Corner(f, 1) + c] +
                     vertex_colors[3 * mesh.Corner(f, 2) + c]) / 3.0f;
        }
      }
      auto& page = atlas->pages[chart.page];
      for (int y = chart.y; y < chart.y + chart.height; ++y) {
        for (int x = chart.x; x < chart.x + chart.width; ++x) {
          for (int c = 0; c < 3; ++c) page[(size_t(y) * size + x) * 3 + c] = uint8_t(std::lround(mean[c]));
        }
      }
    }

    // Seam levelling, global (one offset per view from the candidates' colours beside the seams)
    // and local (a smooth correction per chart vertex).
    std::vector<std::array<float, 3>> offsets(num_views, {0.0f, 0.0f, 0.0f});
    if (options->level_seams >= 1) {
      offsets = LevelSeams(num_views, CollectSeamSamples(mesh, charts, chart_of, neighbours, candidates),
                           options->seam_regularization);
    }

    // Texels from the views, each view decoded once, plus the view's offset and, levelling
    // locally, the chart's correction; charts never overlap, so threads write disjoint
    // rectangles. Below one texel per pixel the view is area-filtered first, so the atlas does
    // not alias.
    std::vector<std::string> failures(num_views);
    const bool level_locally = options->level_seams == 2;
    const LocalLevelling local =
        level_locally ? LevelSeamsLocally(mesh, view_list, charts, chart_of, neighbours, candidates, offsets,
                                          options->local_seam_sigma_px, options->num_threads)
                      : LocalLevelling{};
    ParallelFor(num_views, options->num_threads, 1, [&](int64_t begin, int64_t end, int) {
      for (int64_t v = begin; v < end; ++v) {
        if (charts_of_view[v].empty()) continue;
        cv::Mat image;
        if (DecodeImage(image_paths[v], false, &image) != CVIS_OK) {
          failures[v] = cvis_last_error_message();
          continue;
        }
        double resample = 1.0;  // view pixels per image pixel used for sampling
        if (scale < 0.75) {
          cv::Mat smaller;
          cv::resize(image, smaller, cv::Size(), scale, scale, cv::INTER_AREA);
          resample = double(smaller.cols) / image.cols;
          image = smaller;
        }
        for (size_t c : charts_of_view[v]) {
          const Chart& chart = charts[c];
          auto& page = atlas->pages[chart.page];
          const std::vector<std::array<float, 3>> correction =
              level_locally ? CorrectionTexels(mesh, chart, local.vertices[c], local.corrections[c], atlas->uvs.data(), size)
                            : std::vector<std::array<float, 3>>();
          const auto& offset = offsets[v];
          for (int j = 0; j < chart.height; ++j) {
            const double y = TexelToPixel(j + 0.5, chart.min_y, scale, padding);
            for (int i = 0; i < chart.width; ++i) {
              const double x = TexelToPixel(i + 0.5, chart.min_x, scale, padding);
              auto rgb = SampleBGR(image, x * resample, y * resample);
              for (int k = 0; k < 3; ++k) rgb[k] += offset[k];
              if (level_locally) {
                const auto& g = correction[size_t(j) * chart.width + i];
                for (int k = 0; k < 3; ++k) rgb[k] += g[k];
              }
              uint8_t* texel = &page[(size_t(chart.y + j) * size + chart.x + i) * 3];
              for (int k = 0; k < 3; ++k) texel[k] = uint8_t(std::clamp(std::lround(rgb[k]), 0L, 255L));
            }
          }
        }
      }
    });
    for (int32_t v = 0; v < num_views; ++v) {
      if (!failures[v].empty()) return Fail(CVIS_DECODE_ERROR, failures[v]);
    }
    *out = atlas.release();
    return CVIS_OK;
  });
}

extern "C" void cvis_texture_atlas_destroy(cvis_texture_atlas* atlas) { delete atlas; }
extern "C" int32_t cvis_texture_atlas_num_pages(const cvis_texture_atlas* atlas) {
  return int32_t(atlas->pages.size());
}
extern "C" int32_t cvis_texture_atlas_page_size(const cvis_texture_atlas* atlas) { return atlas->page_size; }
extern "C" const uint8_t* cvis_texture_atlas_page(const cvis_texture_atlas* atlas, int32_t page) {
  return page >= 0 && size_t(page) < atlas->pages.size() ? atlas->pages[page].data() : nullptr;
}
extern "C" int64_t cvis_texture_atlas_num_faces(const cvis_texture_atlas* atlas) {
  return int64_t(atlas->face_views.size());
}
extern "C" const float* cvis_texture_atlas_uvs(const cvis_texture_atlas* atlas) { return atlas->uvs.data(); }
extern "C" const int32_t* cvis_texture_atlas_face_pages(const cvis_texture_atlas* atlas) {
  return atlas->face_pages.data();
}
extern "C" const int32_t* cvis_texture_atlas_face_views(const cvis_texture_atlas* atlas) {
  return atlas->face_views.data();
}
extern "C" int64_t cvis_texture_atlas_num_charts(const cvis_texture_atlas* atlas) { return atlas->num_charts; }
extern "C" double cvis_texture_atlas_scale(const cvis_texture_atlas* atlas) { return atlas->scale; }

extern "C" cvis_status cvis_texture_atlas_encode_page(const cvis_texture_atlas* atlas, int32_t page,
                                                      int32_t jpeg_quality, cvis_buffer** out) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (atlas == nullptr || out == nullptr || page < 0 || size_t(page) >= atlas->pages.size() ||
        jpeg_quality < 0 || jpeg_quality > 100) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_texture_atlas_encode_page: no such page or quality");
    }
    *out = nullptr;
    const int size = atlas->page_size;
    cv::Mat rgb(size, size, CV_8UC3, const_cast<uint8_t*>(atlas->pages[page].data()));
    cv::Mat bgr;
    cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
    auto buffer = std::make_unique<cvis_buffer>();
    const bool ok = jpeg_quality > 0
                        ? cv::imencode(".jpg", bgr, buffer->bytes, {cv::IMWRITE_JPEG_QUALITY, jpeg_quality})
                        : cv::imencode(".png", bgr, buffer->bytes);
    if (!ok) return Fail(CVIS_INTERNAL_ERROR, "cvis_texture_atlas_encode_page: encoding failed");
    *out = buffer.release();
    return CVIS_OK;
  });
}

extern "C" cvis_status cvis_texture_atlas_save_page(const cvis_texture_atlas* atlas, int32_t page,
                                                    const char* path) {
  using namespace cvis;
  return Guard([&]() -> cvis_status {
    if (atlas == nullptr || path == nullptr || page < 0 || size_t(page) >= atlas->pages.size()) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_texture_atlas_save_page: no such page");
    }
    const int size = atlas->page_size;
    cv::Mat rgb(size, size, CV_8UC3, const_cast<uint8_t*>(atlas->pages[page].data()));
    cv::Mat bgr;
    cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
    return WriteImageAtomically(path, bgr);
  });
}
