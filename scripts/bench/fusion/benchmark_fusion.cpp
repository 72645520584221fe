// End-to-end check of depth-map fusion and the cloud comparison on a dataset with exact depth
// (synthetic-orbit): ground-truth depth PNGs (uint16 mm) become CVISDM01 depth maps with normals
// from depth gradients, are fused with cvis_fuse_depth_maps, and the cloud is compared with
// gt_mesh.ply (region gt_mesh_object.ply) at 1 cm. Not a test: it reads /work/shared.
//   benchmark_fusion DATASET [NEIGHBOURS=8] [MIN_NUM_VIEWS=3]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "../../../CVision/include/cvis_cloud.h"

namespace {

double Seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

int Die(const char* what) {
  std::fprintf(stderr, "%s: %s\n", what, cvis_last_error_message());
  return 1;
}

// Views from a COLMAP text model with one PINHOLE camera (cameras.txt, images.txt).
bool ReadViews(const std::string& dir, std::vector<cvis_mvs_view>* views, std::vector<std::string>* names) {
  std::ifstream cameras(dir + "/cameras.txt"), images(dir + "/images.txt");
  std::string line, model;
  cvis_mvs_view pinhole{};
  while (std::getline(cameras, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    int id;
    s >> id >> model >> pinhole.width >> pinhole.height >> pinhole.fx >> pinhole.fy >> pinhole.cx >> pinhole.cy;
    break;
  }
  if (model != "PINHOLE") return false;
  while (std::getline(images, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream s(line);
    int id, camera;
    double w, x, y, z;
    std::string name;
    cvis_mvs_view v = pinhole;
    if (!(s >> id >> w >> x >> y >> z >> v.translation[0] >> v.translation[1] >> v.translation[2] >> camera >> name)) continue;
    const double R[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w),
                         2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w),
                         2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)};
    std::copy(R, R + 9, v.rotation);
    views->push_back(v);
    names->push_back(name);
    std::getline(images, line);  // the POINTS2D line
  }
  return !views->empty();
}

// A depth map from a uint16 millimetre PNG; normals from the cross product of the neighbouring
// pixels' camera points, turned towards the camera.
bool ConvertDepth(const std::string& png, const cvis_mvs_view& v, const std::string& out) {
  const cv::Mat mm = cv::imread(png, cv::IMREAD_ANYDEPTH);
  if (mm.type() != CV_16U || mm.cols != v.width || mm.rows != v.height) return false;
  cvis_depth_map* map = nullptr;
  if (cvis_depth_map_create(v.width, v.height, &map) != CVIS_OK) return false;
  float* depth = cvis_depth_map_depths(map);
  float* normal = cvis_depth_map_normals(map);
  auto point = [&](int x, int y, double p[3]) {
    const double z = mm.at<uint16_t>(y, x) / 1000.0;
    p[0] = (x + 0.5 - v.cx) / v.fx * z;
    p[1] = (y + 0.5 - v.cy) / v.fy * z;
    p[2] = z;
    return z > 0;
  };
  for (int y = 0; y < v.height; ++y) {
    for (int x = 0; x < v.width; ++x) {
      double p[3], a[3], b[3];
      if (!point(x, y, p)) continue;
      depth[y * v.width + x] = float(p[2]);
      const int x2 = x + 1 < v.width ? x + 1 : x - 1, y2 = y + 1 < v.height ? y + 1 : y - 1;
      if (!point(x2, y, a) || !point(x, y2, b)) continue;
      const double u[3] = {a[0] - p[0], a[1] - p[1], a[2] - p[2]}, w[3] = {b[0] - p[0], b[1] - p[1], b[2] - p[2]};
      const double n[3] = {u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0]};
      double length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
      if (length == 0) continue;
      if (n[0] * p[0] + n[1] * p[1] + n[2] * p[2] > 0) length = -length;
      for (int c = 0; c < 3; ++c) normal[3 * (y * v.width + x) + c] = float(n[c] / length);
    }
  }
  const bool ok = cvis_depth_map_save(map, out.c_str()) == CVIS_OK;
  cvis_depth_map_destroy(map);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: benchmark_fusion DATASET [NEIGHBOURS=8] [MIN_NUM_VIEWS=3]\n");
    return 2;
  }
  const std::string dataset = argv[1];
  const int num_neighbours = argc > 2 ? std::atoi(argv[2]) : 8;
  const char* tmp = std::getenv("TMPDIR");
  const std::string out = std::string(tmp ? tmp : "/tmp") + "/benchmark-fusion";
  std::system(("mkdir -p '" + out + "'").c_str());

  std::vector<cvis_mvs_view> views;
  std::vector<std::string> names, depth_paths, image_paths;
  if (!ReadViews(dataset + "/gt_sparse", &views, &names)) {
    std::fprintf(stderr, "%s/gt_sparse: no PINHOLE model\n", dataset.c_str());
    return 1;
  }
  const int n = int(views.size());
  for (int i = 0; i < n; ++i) {
    const std::string stem = names[i].substr(0, names[i].rfind('.'));
    depth_paths.push_back(out + "/" + stem + ".depth");
    image_paths.push_back(dataset + "/images/" + names[i]);
    if (!ConvertDepth(dataset + "/depth/" + stem + ".png", views[i], depth_paths.back())) {
      std::fprintf(stderr, "%s: cannot convert its depth\n", names[i].c_str());
      return 1;
    }
  }
  // Neighbours: the views whose optical axes are closest in angle.
  std::vector<int32_t> offsets{0}, neighbours;
  for (int i = 0; i < n; ++i) {
    std::vector<std::pair<double, int>> order;
    for (int j = 0; j < n; ++j) {
      if (j == i) continue;
      double cosine = 0;
      for (int r = 0; r < 3; ++r) cosine += views[i].rotation[6 + r] * views[j].rotation[6 + r];
      order.push_back({-cosine, j});
    }
    std::sort(order.begin(), order.end());
    for (int k = 0; k < num_neighbours && k < int(order.size()); ++k) neighbours.push_back(order[k].second);
    offsets.push_back(int32_t(neighbours.size()));
  }
  std::vector<const char*> depths, images;
  for (const auto& p : depth_paths) depths.push_back(p.c_str());
  for (const auto& p : image_paths) images.push_back(p.c_str());
  cvis_mvs_workspace* workspace = nullptr;
  if (cvis_mvs_workspace_create(n, views.data(), images.data(), nullptr, uint64_t(1) << 30, &workspace) != CVIS_OK) {
    return Die("workspace");
  }
  cvis_fusion_options options;
  cvis_fusion_options_default(&options);
  if (argc > 3) options.min_num_views = std::atoi(argv[3]);
  const std::string ply = out + "/fused.ply";
  int64_t count = 0;
  auto start = std::chrono::steady_clock::now();
  if (cvis_fuse_depth_maps(workspace, depths.data(), offsets.data(), neighbours.data(), &options,
                           ply.c_str(), nullptr, &count) != CVIS_OK) {
    return Die("fusion");
  }
  std::printf("fusion: %d views, %d neighbours, min %d views: %lld points in %.2f s -> %s\n", n,
              num_neighbours, options.min_num_views, (long long)count, Seconds(start), ply.c_str());
  cvis_mvs_workspace_destroy(workspace);

  cvis_cloud *ours = nullptr, *reference = nullptr, *region = nullptr;
  if (cvis_cloud_load_ply(ply.c_str(), &ours) != CVIS_OK ||
      cvis_cloud_load_ply((dataset + "/gt_mesh.ply").c_str(), &reference) != CVIS_OK ||
      cvis_cloud_load_ply((dataset + "/gt_mesh_object.ply").c_str(), &region) != CVIS_OK) {
    return Die("load");
  }
  const double R[9] = {1, 0, 0, 0, 1, 0, 0, 0, 1}, t[3] = {0, 0, 0};
  for (double tau : {0.005, 0.01, 0.02}) {
    cvis_cloud_comparison c;
    start = std::chrono::steady_clock::now();
    if (cvis_compare_clouds(ours, reference, region, 1, R, t, tau, tau / 5, &c) != CVIS_OK) return Die("compare");
    std::printf("tau %.3f: accuracy %.2f completeness %.2f F1 %.2f (%lld points, %lld samples, %.2f s)\n", tau,
                100 * c.accuracy, 100 * c.completeness, 100 * c.f1, (long long)c.evaluated_points,
                (long long)c.reference_samples, Seconds(start));
  }
  cvis_cloud_destroy(ours);
  cvis_cloud_destroy(reference);
  cvis_cloud_destroy(region);
  return 0;
}
