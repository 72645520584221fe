// Scratch benchmark of PatchMatch on a dataset with ground truth (synthetic-orbit layout:
// gt_sparse/{cameras,images}.txt PINHOLE, images/NNNN.jpg, depth/NNNN.png uint16 mm).
// Build and run: scripts/bench/depth/run.sh DATASET [REF ...]
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <opencv2/imgcodecs.hpp>

#include "../../../CVision/include/cvis_mvs.h"

struct Image { std::string name; double R[9], t[3]; };

static void QuatToR(double w, double x, double y, double z, double* R) {
  R[0] = 1 - 2 * (y * y + z * z); R[1] = 2 * (x * y - w * z); R[2] = 2 * (x * z + w * y);
  R[3] = 2 * (x * y + w * z); R[4] = 1 - 2 * (x * x + z * z); R[5] = 2 * (y * z - w * x);
  R[6] = 2 * (x * z - w * y); R[7] = 2 * (y * z + w * x); R[8] = 1 - 2 * (x * x + y * y);
}

int main(int argc, char** argv) {
  if (argc < 2) { std::fprintf(stderr, "usage: %s DATASET [REF...]\n", argv[0]); return 2; }
  const std::string root = argv[1];
  std::vector<int> refs;
  for (int i = 2; i < argc; ++i) refs.push_back(std::atoi(argv[i]));
  if (refs.empty()) refs = {0};
  double fx = 0, fy = 0, cx = 0, cy = 0; int W = 0, H = 0;
  {
    std::ifstream f(root + "/gt_sparse/cameras.txt"); std::string line;
    while (std::getline(f, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream s(line); int id; std::string model;
      s >> id >> model >> W >> H >> fx >> fy >> cx >> cy;
    }
  }
  std::vector<Image> images;
  {
    std::ifstream f(root + "/gt_sparse/images.txt"); std::string line;
    while (std::getline(f, line)) {
      if (line.empty() || line[0] == '#') continue;
      std::istringstream s(line); int id, cam; double q[4]; Image im;
      if (!(s >> id >> q[0] >> q[1] >> q[2] >> q[3] >> im.t[0] >> im.t[1] >> im.t[2] >> cam >> im.name)) continue;
      QuatToR(q[0], q[1], q[2], q[3], im.R);
      images.push_back(im);
      std::getline(f, line);  // points line
    }
  }
  std::sort(images.begin(), images.end(), [](auto& a, auto& b) { return a.name < b.name; });
  const int n = int(images.size());
  std::vector<cvis_mvs_view> views(n);
  std::vector<std::string> paths(n);
  std::vector<const char*> cpaths(n);
  for (int i = 0; i < n; ++i) {
    cvis_mvs_view& v = views[i];
    v.width = W; v.height = H; v.fx = fx; v.fy = fy; v.cx = cx; v.cy = cy;
    std::copy(images[i].R, images[i].R + 9, v.rotation);
    std::copy(images[i].t, images[i].t + 3, v.translation);
    paths[i] = root + "/images/" + images[i].name;
    cpaths[i] = paths[i].c_str();
  }
  cvis_mvs_workspace* ws = nullptr;
  if (cvis_mvs_workspace_create(n, views.data(), cpaths.data(), nullptr, 1ull << 30, &ws) != CVIS_OK) {
    std::fprintf(stderr, "%s\n", cvis_last_error_message()); return 1;
  }
  cvis_patch_match_options options;
  cvis_patch_match_options_default(&options);
  if (const char* it = std::getenv("ITER")) options.num_iterations = std::atoi(it);
  if (const char* th = std::getenv("THREADS")) options.num_threads = std::atoi(th);
  auto viewing = [&](int i) { return std::vector<double>{images[i].R[6], images[i].R[7], images[i].R[8]}; };
  auto neighbours = [&](int r) {
    std::vector<std::pair<double, int>> order;
    auto a = viewing(r);
    for (int j = 0; j < n; ++j) if (j != r) {
      auto b = viewing(j);
      order.push_back({-(a[0] * b[0] + a[1] * b[1] + a[2] * b[2]), j});
    }
    std::sort(order.begin(), order.end());
    std::vector<int> out;
    for (int k = 0; k < 6; ++k) out.push_back(order[k].second);
    return out;
  };
  auto gt_depth = [&](int i) {
    char name[32]; std::snprintf(name, sizeof(name), "/depth/%04d.png", i);
    return cv::imread(root + name, cv::IMREAD_UNCHANGED);
  };
  auto range = [&](int i, double* lo, double* hi) {
    cv::Mat d = gt_depth(i); double mn = 1e9, mx = 0;
    for (int y = 0; y < d.rows; ++y) for (int x = 0; x < d.cols; ++x) {
      const int v = d.at<uint16_t>(y, x); if (v > 0) { mn = std::min(mn, v / 1000.0); mx = std::max(mx, v / 1000.0); }
    }
    *lo = mn * 0.8; *hi = mx * 1.2;
  };
  double last_cpu = 0;  // CPU seconds of the last pass, all threads (robust to a busy machine)
  auto run = [&](int r, bool geometric) {
    auto src = neighbours(r);
    cvis_patch_match_problem p{};
    p.reference = r; p.num_sources = int(src.size()); p.sources = src.data();
    range(r, &p.depth_min, &p.depth_max);
    p.geometric = geometric;
    std::string prev = "/tmp/bench-depth/" + std::to_string(r) + ".photometric.dm";
    std::vector<std::string> sp; std::vector<const char*> csp;
    for (int j : src) sp.push_back("/tmp/bench-depth/" + std::to_string(j) + ".photometric.dm");
    for (auto& s : sp) csp.push_back(s.c_str());
    p.previous_depth_path = prev.c_str();
    p.source_depth_paths = csp.data();
    const std::string out = "/tmp/bench-depth/" + std::to_string(r) + (geometric ? ".geometric.dm" : ".photometric.dm");
    auto t0 = std::chrono::steady_clock::now();
    const std::clock_t c0 = std::clock();
    if (cvis_patch_match(ws, &p, &options, out.c_str()) != CVIS_OK) {
      std::fprintf(stderr, "%s\n", cvis_last_error_message()); std::exit(1);
    }
    last_cpu = double(std::clock() - c0) / CLOCKS_PER_SEC;
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  };
  auto evaluate = [&](int r, const char* pass) {
    cvis_depth_map* m = nullptr;
    const std::string path = "/tmp/bench-depth/" + std::to_string(r) + "." + pass + ".dm";
    cvis_depth_map_load(path.c_str(), &m);
    cv::Mat gt = gt_depth(r);
    const float* d = cvis_depth_map_depths(m);
    long gt_count = 0, valid = 0, valid_gt = 0, good = 0;
    // Picture: black invalid, green within 1 %, red wrong, blue valid without ground truth.
    cv::Mat picture(H, W, CV_8UC3, cv::Scalar(0, 0, 0));
    for (int y = 0; y < H; ++y) for (int x = 0; x < W; ++x) {
      const double g = gt.at<uint16_t>(y, x) / 1000.0, e = d[y * W + x];
      if (g > 0) gt_count++;
      if (e > 0) valid++;
      if (e > 0 && g > 0) { valid_gt++; if (std::fabs(e - g) <= 0.01 * g) good++; }
      cv::Vec3b& c = picture.at<cv::Vec3b>(y, x);
      if (e > 0 && g > 0) c = std::fabs(e - g) <= 0.01 * g ? cv::Vec3b(0, 200, 0) : cv::Vec3b(0, 0, 255);
      else if (e > 0) c = cv::Vec3b(255, 0, 0);
      else if (g > 0) c = cv::Vec3b(60, 60, 60);
    }
    cv::imwrite("/tmp/bench-depth/" + std::to_string(r) + "." + pass + ".png", picture);
    std::printf("  GT coverage %.1f%%\n", 100.0 * gt_count / (W * H));
    std::printf("  %-12s GT px within 1%%: %5.1f%%  valid: %5.1f%%  valid within 1%%: %5.1f%%\n", pass,
                100.0 * good / gt_count, 100.0 * valid / (W * H), 100.0 * good / std::max(1L, valid_gt));
    cvis_depth_map_destroy(m);
  };
  std::system("mkdir -p /tmp/bench-depth");
  // Photometric maps of the references and all their sources (the geometric pass needs them).
  std::vector<int> need;
  for (int r : refs) { need.push_back(r); for (int j : neighbours(r)) need.push_back(j); }
  std::sort(need.begin(), need.end()); need.erase(std::unique(need.begin(), need.end()), need.end());
  const bool all = std::getenv("ALL") != nullptr;
  for (int i : need) {
    const bool is_ref = std::find(refs.begin(), refs.end(), i) != refs.end();
    if (!is_ref && !all) {
      FILE* f = std::fopen(("/tmp/bench-depth/" + std::to_string(i) + ".photometric.dm").c_str(), "rb");
      if (f) { std::fclose(f); continue; }
    }
    const double s = run(i, false);
    if (is_ref) std::printf("view %04d photometric %.2f s wall, %.2f s CPU\n", i, s, last_cpu);
  }
  for (int r : refs) {
    const double s = run(r, true);
    std::printf("view %04d geometric %.2f s wall, %.2f s CPU\n", r, s, last_cpu);
    evaluate(r, "photometric");
    evaluate(r, "geometric");
  }
  cvis_mvs_workspace_destroy(ws);
}
