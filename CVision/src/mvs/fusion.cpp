// Depth-map fusion (COLMAP's StereoFusion, ACMM's fusion, simplified to one hop): every valid,
// unused pixel of a view is checked against its neighbours' depth maps; when enough agree, the
// agreeing observations become one point (mean position, normal and colour) and are all marked
// used, so no surface is fused twice.
//
// Sensor depth (a phone's LiDAR), when views have it, is fused in a second pass over the pixels
// the first, photometric pass left unused: plain walls, where matching found nothing or depths
// too scattered for views to agree on. The photographs' points are those of fusion without
// sensor depth, exactly; sensor observations agree with sensor observations only, within the
// sensor's looser limits, and agreement between views is still what makes a point, so a wrong
// sensor pixel of one view makes none.
//
// The sensor pass differs from the photometric one where the sensor's nature says it should. Two
// views agreeing make a sensor point (min_num_sensor_views): each frame's depth is an independent
// metric measurement, smoothed over its neighbourhood, so a second frame agreeing within the
// sensor's error confirms it the way a third photograph confirms a matched depth; a surface two
// frames see is then kept, where the photographs' three-view rule would drop it. And a view is
// checked against the views whose sensor depth shares the most surface with its own, besides its
// photometric sources: those are ranked by the sparse points two views share and by their
// triangulation angle, and a plain wall has few sparse points while the sensor needs no angle.
//
// Determinism with threads: a band of rows is evaluated in parallel against the "used" marks as
// they stand at the start of the band, then committed sequentially in row-major order; a commit
// drops observations an earlier commit of the band took. The output does not depend on the
// number of threads.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "../../include/cvis_cloud.h"
#include "../util/parallel.h"
#include "../cloud/ply.h"
#include "../io/image_io.h"
#include "../util/status.h"
#include "workspace.h"

namespace cvis {
namespace mvs {
namespace {

constexpr int kBandRows = 32;
constexpr double kPi = 3.14159265358979323846;

// One pixel's vote: where it puts the point, its normal and colour.
struct Observation {
  int32_t view;
  int32_t pixel;      // row-major index in that view
  float position[3];  // world
  float normal[3];    // world, zero when the depth map has none
  uint8_t color[3];   // RGB
};

// Candidates of one row: candidate k owns observations[begin[k] .. begin[k + 1]), the reference
// pixel's own first.
struct RowCandidates {
  std::vector<int32_t> begin{0};
  std::vector<Observation> observations;
};

// Per-view bit set of pixels already part of a point, allocated when first needed.
class UsedMarks {
 public:
  explicit UsedMarks(int num_views) : bits_(size_t(num_views)) {}
  bool Get(int view, int pixel) const {
    const std::vector<uint64_t>& bits = bits_[size_t(view)];
    return !bits.empty() && (bits[size_t(pixel) >> 6] >> (pixel & 63) & 1);
  }
  void Set(int view, int pixel, int num_pixels) {
    std::vector<uint64_t>& bits = bits_[size_t(view)];
    if (bits.empty()) bits.assign((size_t(num_pixels) + 63) / 64, 0);
    bits[size_t(pixel) >> 6] |= uint64_t(1) << (pixel & 63);
  }

 private:
  std::vector<std::vector<uint64_t>> bits_;
};

// What fusion holds of one view while it is the reference or a neighbour.
struct LoadedView {
  int index = -1;
  const View* view = nullptr;
  std::shared_ptr<const DepthMap> depth;   // photometric; null when the view has none
  std::shared_ptr<const DepthMap> sensor;  // null when the view has none
  float sensor_scale = 1;                  // model units per sensor depth unit
  std::shared_ptr<const cv::Mat> colour;   // BGR
};

// The map a pass reads: the photometric one, or the sensor's.
const DepthMap* PassMap(const LoadedView& loaded, bool sensor) {
  return sensor ? loaded.sensor.get() : loaded.depth.get();
}

// A view's depth at a pixel in the pass's map (the sensor's scaled to the model); 0 without.
float DepthAt(const LoadedView& loaded, int x, int y, bool sensor) {
  const DepthMap* map = PassMap(loaded, sensor);
  if (map == nullptr) return 0;
  return map->Depth(x, y) * (sensor ? loaded.sensor_scale : 1.0f);
}

void WorldNormal(const View& view, const float* camera_normal, float out[3]) {
  const double n[3] = {camera_normal[0], camera_normal[1], camera_normal[2]};
  double world[3];
  view.WorldFromCamDirection(n, world);
  for (int k = 0; k < 3; ++k) out[k] = float(world[k]);
}

bool HasNormal(const float n[3]) { return n[0] * n[0] + n[1] * n[1] + n[2] * n[2] > 0.25f; }

Observation Observe(const LoadedView& loaded, int x, int y, const double world[3], bool sensor) {
  Observation observation;
  observation.view = loaded.index;
  observation.pixel = y * loaded.view->width + x;
  for (int k = 0; k < 3; ++k) observation.position[k] = float(world[k]);
  WorldNormal(*loaded.view, PassMap(loaded, sensor)->Normal(x, y), observation.normal);
  const cv::Vec3b bgr = loaded.colour->at<cv::Vec3b>(y, x);
  observation.color[0] = bgr[2];
  observation.color[1] = bgr[1];
  observation.color[2] = bgr[0];
  return observation;
}

class Fuser {
 public:
  Fuser(Workspace* workspace, const std::vector<std::string>& depth_paths,
        const std::vector<std::string>& sensor_paths, const std::vector<double>& sensor_scales,
        const cvis_fusion_options& options)
      : workspace_(*workspace), depth_paths_(depth_paths), sensor_paths_(sensor_paths),
        sensor_scales_(sensor_scales), options_(options),
        used_(workspace->NumViews()),
        cos_max_normal_(std::cos(options.max_normal_error_deg * kPi / 180.0)) {}

  cvis_status Load(int i, LoadedView* out) {
    out->index = i;
    out->view = &workspace_.view(i);
    if (cvis_status s = LoadMap(i, depth_paths_[size_t(i)], &out->depth); s != CVIS_OK) return s;
    if (cvis_status s = LoadMap(i, sensor_paths_[size_t(i)], &out->sensor); s != CVIS_OK) return s;
    out->sensor_scale = float(sensor_scales_[size_t(i)]);
    return workspace_.Colour(i, &out->colour);
  }

  int64_t sensor_points() const { return sensor_points_; }

  // The pass: false for the photometric maps, true for the sensor's.
  void SetSensorPass(bool sensor) { sensor_ = sensor; }

  // Fuses view `reference` against `neighbours` in the pass's maps, appending points to writer.
  cvis_status FuseView(const LoadedView& reference, const std::vector<LoadedView>& neighbours,
                       PlyPointWriter* writer) {
    const int height = reference.view->height;
    std::vector<RowCandidates> rows(kBandRows);
    for (int band = 0; band < height; band += kBandRows) {
      const int band_end = std::min(height, band + kBandRows);
      ParallelFor(band_end - band, options_.num_threads, 1, [&](int64_t begin, int64_t end, int) {
        for (int64_t r = begin; r < end; ++r) {
          rows[size_t(r)] = RowCandidates();
          EvaluateRow(reference, neighbours, int(band + r), &rows[size_t(r)]);
        }
      });
      for (int y = band; y < band_end; ++y) Commit(rows[size_t(y - band)]);
      if (cvis_status s = Flush(writer); s != CVIS_OK) return s;
    }
    return CVIS_OK;
  }

 private:
  void EvaluateRow(const LoadedView& reference, const std::vector<LoadedView>& neighbours, int y,
                   RowCandidates* row) const {
    const View& ref = *reference.view;
    const int needed = MinViews() - 1;
    // The sensor pass is held to the sensor's limits: its depth error, and the re-projection
    // error that much depth error makes.
    const double max_depth_error = sensor_ ? options_.max_sensor_depth_error : options_.max_depth_error;
    const double max_reprojection =
        options_.max_reprojection_error * (sensor_ ? std::max(1.0, options_.max_sensor_depth_error / options_.max_depth_error) : 1.0);
    for (int x = 0; x < ref.width; ++x) {
      if (used_.Get(reference.index, y * ref.width + x)) continue;
      const float depth = DepthAt(reference, x, y, sensor_);
      if (!(depth > 0)) continue;
      double cam[3], world[3];
      ref.CamFromPixel(x + 0.5, y + 0.5, depth, cam);
      ref.WorldFromCam(cam, world);
      const size_t first = row->observations.size();
      row->observations.push_back(Observe(reference, x, y, world, sensor_));
      const float* ref_normal = row->observations[first].normal;
      int agreeing = 0;
      for (const LoadedView& neighbour : neighbours) {
        const View& view = *neighbour.view;
        double cam_j[3], u, v;
        view.CamFromWorld(world, cam_j);
        if (!view.ProjectCam(cam_j, &u, &v) || u < 0 || v < 0 || u >= view.width || v >= view.height) continue;
        const int col = int(u), row_j = int(v);
        if (used_.Get(neighbour.index, row_j * view.width + col)) continue;
        const float depth_j = DepthAt(neighbour, col, row_j, sensor_);
        if (!(depth_j > 0)) continue;
        // Depth: where the reference puts the point against what the neighbour measured.
        if (std::abs(cam_j[2] - depth_j) > max_depth_error * depth_j) continue;
        // Re-projection: the neighbour's own point seen from the reference, in reference pixels.
        double back_cam[3], back_world[3], back_in_ref[3], x_ref, y_ref;
        view.CamFromPixel(col + 0.5, row_j + 0.5, depth_j, back_cam);
        view.WorldFromCam(back_cam, back_world);
        ref.CamFromWorld(back_world, back_in_ref);
        if (!ref.ProjectCam(back_in_ref, &x_ref, &y_ref)) continue;
        const double dx = x_ref - (x + 0.5), dy = y_ref - (y + 0.5);
        if (dx * dx + dy * dy > max_reprojection * max_reprojection) continue;
        Observation observation = Observe(neighbour, col, row_j, back_world, sensor_);
        // Normals: a map without them (zero normals) does not veto.
        if (HasNormal(ref_normal) && HasNormal(observation.normal)) {
          const float* n = observation.normal;
          const double cosine = (ref_normal[0] * n[0] + ref_normal[1] * n[1] + ref_normal[2] * n[2]) /
                                std::sqrt(double(ref_normal[0] * ref_normal[0] + ref_normal[1] * ref_normal[1] +
                                                 ref_normal[2] * ref_normal[2]) *
                                          (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]));
          if (cosine < cos_max_normal_) continue;
        }
        row->observations.push_back(observation);
        ++agreeing;
      }
      if (agreeing < needed) {
        row->observations.resize(first);  // too few views: not a candidate
        continue;
      }
      row->begin.push_back(int32_t(row->observations.size()));
    }
  }

  // Turns a row's candidates into points, in order, skipping observations already taken.
  void Commit(const RowCandidates& row) {
    for (size_t k = 0; k + 1 < row.begin.size(); ++k) {
      const Observation* first = &row.observations[size_t(row.begin[k])];
      const Observation* last = &row.observations[size_t(row.begin[k + 1])];
      int count = 0;
      for (const Observation* o = first; o != last; ++o) count += used_.Get(o->view, o->pixel) ? 0 : 1;
      if (count < MinViews()) continue;
      double position[3] = {0, 0, 0}, normal[3] = {0, 0, 0}, color[3] = {0, 0, 0};
      for (const Observation* o = first; o != last; ++o) {
        if (used_.Get(o->view, o->pixel)) continue;
        for (int c = 0; c < 3; ++c) {
          position[c] += o->position[c];
          normal[c] += o->normal[c];
          color[c] += o->color[c];
        }
        used_.Set(o->view, o->pixel, ViewPixels(o->view));
      }
      const double length = std::sqrt(normal[0] * normal[0] + normal[1] * normal[1] + normal[2] * normal[2]);
      for (int c = 0; c < 3; ++c) {
        points_.push_back(float(position[c] / count));
        normals_.push_back(length > 0 ? float(normal[c] / length) : 0.0f);
        colors_.push_back(uint8_t(std::lround(color[c] / count)));
      }
      if (sensor_) ++sensor_points_;
    }
  }

  int MinViews() const { return sensor_ ? options_.min_num_sensor_views : options_.min_num_views; }

  int ViewPixels(int view) const { return workspace_.view(view).width * workspace_.view(view).height; }

  // The map at path (empty: none, *out null), checked to be the view's size.
  cvis_status LoadMap(int i, const std::string& path, std::shared_ptr<const DepthMap>* out) {
    out->reset();
    if (path.empty()) return CVIS_OK;
    if (cvis_status s = workspace_.Depth(path, out); s != CVIS_OK) return s;
    const View& view = workspace_.view(i);
    if ((*out)->width != view.width || (*out)->height != view.height) {
      return Fail(CVIS_INVALID_ARGUMENT, Str(BaseName(path), ": depth map is ", (*out)->width, "x",
                                             (*out)->height, " but view ", i, " is ", view.width, "x",
                                             view.height));
    }
    return CVIS_OK;
  }

  cvis_status Flush(PlyPointWriter* writer) {
    const cvis_status status =
        writer->Append(int64_t(points_.size() / 3), points_.data(), normals_.data(), colors_.data());
    points_.clear();
    normals_.clear();
    colors_.clear();
    return status;
  }

  Workspace& workspace_;
  const std::vector<std::string>& depth_paths_;
  const std::vector<std::string>& sensor_paths_;
  const std::vector<double>& sensor_scales_;
  const cvis_fusion_options options_;
  int64_t sensor_points_ = 0;
  bool sensor_ = false;
  UsedMarks used_;
  const double cos_max_normal_;
  std::vector<float> points_, normals_;
  std::vector<uint8_t> colors_;
};

// Pixels of a view's sensor map sampled to measure which views share its surface: every
// kOverlapStride-th pixel of every kOverlapStride-th row, about 4800 at 640 x 480.
constexpr int kOverlapStride = 8;

// Per view with a sensor map, up to `count` other views ranked by how many of its sampled sensor
// points fall in their frame on their own sensor depth (within max_error), most first, ties by
// index; views sharing none are left out. Each map is read twice, not once per pair: first for
// its samples, kept as world points (a few tens of kB a view), then to check every other view's
// samples against it.
cvis_status SensorNeighbours(Workspace& ws, const std::vector<std::string>& paths,
                             const std::vector<double>& scales, int count, double max_error,
                             int num_threads, std::vector<std::vector<int>>* out) {
  const int n = ws.NumViews();
  out->assign(size_t(n), {});
  if (count <= 0) return CVIS_OK;
  std::vector<std::vector<cv::Vec3d>> samples(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    if (paths[size_t(i)].empty()) continue;
    std::shared_ptr<const DepthMap> map;
    if (cvis_status s = ws.Depth(paths[size_t(i)], &map); s != CVIS_OK) return s;
    const View& view = ws.view(i);
    for (int y = kOverlapStride / 2; y < map->height; y += kOverlapStride) {
      for (int x = kOverlapStride / 2; x < map->width; x += kOverlapStride) {
        const double depth = map->Depth(x, y) * scales[size_t(i)];
        if (!(depth > 0)) continue;
        double cam[3], world[3];
        view.CamFromPixel(x + 0.5, y + 0.5, depth, cam);
        view.WorldFromCam(cam, world);
        samples[size_t(i)].emplace_back(world[0], world[1], world[2]);
      }
    }
  }
  // shared[i * n + j]: samples of view i on view j's sensor surface.
  std::vector<int32_t> shared(size_t(n) * size_t(n), 0);
  for (int j = 0; j < n; ++j) {
    if (paths[size_t(j)].empty()) continue;
    std::shared_ptr<const DepthMap> map;
    if (cvis_status s = ws.Depth(paths[size_t(j)], &map); s != CVIS_OK) return s;
    const View& view = ws.view(j);
    const float scale = float(scales[size_t(j)]);
    ParallelFor(n, num_threads, 1, [&](int64_t begin, int64_t end, int) {
      for (int64_t i = begin; i < end; ++i) {
        if (i == j) continue;
        int32_t agreeing = 0;
        for (const cv::Vec3d& point : samples[size_t(i)]) {
          double cam[3], u, v;
          view.CamFromWorld(point.val, cam);
          if (!view.ProjectCam(cam, &u, &v) || u < 0 || v < 0 || u >= view.width || v >= view.height) continue;
          const float depth = map->Depth(int(u), int(v)) * scale;
          agreeing += depth > 0 && std::abs(cam[2] - depth) <= max_error * depth;
        }
        shared[size_t(i) * size_t(n) + size_t(j)] = agreeing;
      }
    });
  }
  for (int i = 0; i < n; ++i) {
    std::vector<int>& ranked = (*out)[size_t(i)];
    for (int j = 0; j < n; ++j) {
      if (shared[size_t(i) * size_t(n) + size_t(j)] > 0) ranked.push_back(j);
    }
    std::sort(ranked.begin(), ranked.end(), [&](int a, int b) {
      const int32_t sa = shared[size_t(i) * size_t(n) + size_t(a)], sb = shared[size_t(i) * size_t(n) + size_t(b)];
      return sa != sb ? sa > sb : a < b;
    });
    if (int(ranked.size()) > count) ranked.resize(size_t(count));
  }
  return CVIS_OK;
}

cvis_status CheckOptions(const cvis_fusion_options& o) {
  if (o.min_num_views < 1 || !(o.max_reprojection_error > 0) || !(o.max_depth_error > 0) ||
      !(o.max_normal_error_deg > 0) || !(o.max_normal_error_deg <= 180) || o.num_threads < 1 ||
      o.num_threads > 256 || !(o.max_sensor_depth_error > 0) || o.min_num_sensor_views < 1 ||
      o.num_sensor_neighbours < 0) {
    return Fail(CVIS_INVALID_ARGUMENT,
                Str("cvis_fuse_depth_maps: options out of range (min_num_views ", o.min_num_views,
                    ", max_reprojection_error ", o.max_reprojection_error, ", max_depth_error ",
                    o.max_depth_error, ", max_normal_error_deg ", o.max_normal_error_deg,
                    ", num_threads ", o.num_threads, ", max_sensor_depth_error ",
                    o.max_sensor_depth_error, ", min_num_sensor_views ", o.min_num_sensor_views,
                    ", num_sensor_neighbours ", o.num_sensor_neighbours, ")"));
  }
  return CVIS_OK;
}

}  // namespace
}  // namespace mvs
}  // namespace cvis

extern "C" void cvis_fusion_options_default(cvis_fusion_options* options) {
  if (options == nullptr) return;
  options->min_num_views = 2;
  options->max_reprojection_error = 2.0;
  options->max_depth_error = 0.01;
  options->max_normal_error_deg = 30.0;
  options->num_threads = 2;
  options->max_sensor_depth_error = 0.03;
  options->min_num_sensor_views = 2;
  options->num_sensor_neighbours = 8;
}

extern "C" cvis_status cvis_fuse_depth_maps(cvis_mvs_workspace* workspace,
                                            const char* const* depth_paths,
                                            const int32_t* neighbour_offsets,
                                            const int32_t* neighbours,
                                            const cvis_fusion_options* options,
                                            const char* out_ply_path, const char* header_comment,
                                            int64_t* num_points) {
  return cvis_fuse_depth_maps_with_sensor(workspace, depth_paths, nullptr, neighbour_offsets,
                                          neighbours, options, out_ply_path, header_comment,
                                          num_points, nullptr);
}

extern "C" cvis_status cvis_fuse_depth_maps_with_sensor(cvis_mvs_workspace* workspace,
                                                        const char* const* depth_paths,
                                                        const cvis_fusion_sensor_depths* sensor,
                                                        const int32_t* neighbour_offsets,
                                                        const int32_t* neighbours,
                                                        const cvis_fusion_options* options,
                                                        const char* out_ply_path,
                                                        const char* header_comment,
                                                        int64_t* num_points,
                                                        int64_t* num_sensor_points) {
  using namespace cvis;
  using namespace cvis::mvs;
  return Guard([&] {
    if (workspace == nullptr || depth_paths == nullptr || neighbour_offsets == nullptr ||
        options == nullptr || out_ply_path == nullptr || num_points == nullptr) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_fuse_depth_maps: null argument");
    }
    *num_points = 0;
    if (num_sensor_points != nullptr) *num_sensor_points = 0;
    if (cvis_status s = CheckOptions(*options); s != CVIS_OK) return s;
    Workspace& ws = workspace->workspace;
    const int n = ws.NumViews();
    std::vector<std::string> paths(static_cast<size_t>(n)), sensor_paths(static_cast<size_t>(n));
    std::vector<double> sensor_scales(static_cast<size_t>(n), 1.0);
    for (int i = 0; i < n; ++i) paths[size_t(i)] = depth_paths[i] != nullptr ? depth_paths[i] : "";
    if (sensor != nullptr && sensor->depth_paths != nullptr) {
      if (sensor->scales == nullptr) return Fail(CVIS_INVALID_ARGUMENT, "cvis_fuse_depth_maps: sensor depth without scales");
      for (int i = 0; i < n; ++i) {
        if (sensor->depth_paths[i] == nullptr) continue;
        if (!(sensor->scales[i] > 0) || !std::isfinite(sensor->scales[i])) {
          return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_fuse_depth_maps: view ", i, " has sensor scale ", sensor->scales[i]));
        }
        sensor_paths[size_t(i)] = sensor->depth_paths[i];
        sensor_scales[size_t(i)] = sensor->scales[i];
      }
    }
    if (neighbour_offsets[0] != 0) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_fuse_depth_maps: neighbour_offsets[0] must be 0");
    }
    for (int i = 0; i < n; ++i) {
      if (neighbour_offsets[i + 1] < neighbour_offsets[i]) {
        return Fail(CVIS_INVALID_ARGUMENT, Str("cvis_fuse_depth_maps: neighbour_offsets decrease at view ", i));
      }
      for (int32_t k = neighbour_offsets[i]; k < neighbour_offsets[i + 1]; ++k) {
        if (neighbours == nullptr || neighbours[k] < 0 || neighbours[k] >= n || neighbours[k] == i) {
          return Fail(CVIS_INVALID_ARGUMENT,
                      Str("cvis_fuse_depth_maps: view ", i, " has a bad neighbour ",
                          neighbours ? neighbours[k] : -1, " (", n, " views)"));
        }
      }
    }
    const std::string comment = header_comment != nullptr ? header_comment : "";
    if (comment.find_first_of("\r\n") != std::string::npos) {
      return Fail(CVIS_INVALID_ARGUMENT, "cvis_fuse_depth_maps: header_comment holds a line break");
    }
    PlyPointWriter writer(out_ply_path, comment);
    if (cvis_status s = writer.Open(); s != CVIS_OK) return s;
    Fuser fuser(&ws, paths, sensor_paths, sensor_scales, *options);
    // The photometric pass, then the sensor's over the pixels it left unused.
    for (const bool sensor_pass : {false, true}) {
      const std::vector<std::string>& pass_paths = sensor_pass ? sensor_paths : paths;
      if (std::all_of(pass_paths.begin(), pass_paths.end(), [](const std::string& p) { return p.empty(); })) continue;
      std::vector<std::vector<int>> pass_neighbours(static_cast<size_t>(n));
      if (sensor_pass) {
        if (cvis_status s = SensorNeighbours(ws, sensor_paths, sensor_scales, options->num_sensor_neighbours,
                                             options->max_sensor_depth_error, options->num_threads, &pass_neighbours);
            s != CVIS_OK) {
          return s;
        }
      }
      for (int i = 0; i < n; ++i) {
        std::vector<int>& listed = pass_neighbours[size_t(i)];
        listed.insert(listed.begin(), neighbours + neighbour_offsets[i], neighbours + neighbour_offsets[i + 1]);
      }
      fuser.SetSensorPass(sensor_pass);
      for (int i = 0; i < n; ++i) {
        if (pass_paths[size_t(i)].empty()) continue;
        LoadedView reference;
        if (cvis_status s = fuser.Load(i, &reference); s != CVIS_OK) return s;
        std::vector<LoadedView> loaded;
        for (const int j : pass_neighbours[size_t(i)]) {
          // A neighbour without a map in this pass cannot vote; one listed twice votes once.
          if (pass_paths[size_t(j)].empty() ||
              std::any_of(loaded.begin(), loaded.end(), [&](const LoadedView& v) { return v.index == j; })) {
            continue;
          }
          loaded.emplace_back();
          if (cvis_status s = fuser.Load(j, &loaded.back()); s != CVIS_OK) return s;
        }
        if (cvis_status s = fuser.FuseView(reference, loaded, &writer); s != CVIS_OK) return s;
      }
    }
    if (cvis_status s = writer.Finish(); s != CVIS_OK) return s;
    *num_points = writer.count();
    if (num_sensor_points != nullptr) *num_sensor_points = fuser.sensor_points();
    return CVIS_OK;
  });
}
