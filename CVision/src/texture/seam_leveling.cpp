// Seam levelling. Views differ in exposure, white balance and view-dependent shading, so two
// charts meeting at a seam show a step.
//
// Global (LevelSeams): one colour offset per view, chosen so that the colours on both sides of
// every seam agree in the least-squares sense (Waechter et al.'s global adjustment, with one
// offset per view instead of per chart vertex), with a weak pull towards zero that fixes the
// otherwise free overall level.
//
// Local (LevelSeamsLocally), after the global offsets: a smooth correction per chart vertex, so
// that both sides of every seam agree (Waechter et al.'s and Lempitsky and Ivanov's per-vertex
// adjustment) and every chart takes the colour its faces' views agree on where other views see
// them too, keeping its own view's detail within faces. A chart rendered from another view than
// its own then no longer carries its own view's shading (Agisoft's "mosaic" blending keeps a
// view's detail over the views' mean the same way).
#include <algorithm>
#include <cmath>

#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCore>

#include "../util/parallel.h"
#include "texturing.h"

namespace cvis::texture {

std::vector<std::array<float, 3>> LevelSeams(int64_t num_views, const std::vector<SeamSample>& samples,
                                             double regularization) {
  std::vector<std::array<float, 3>> offsets(num_views, {0.0f, 0.0f, 0.0f});
  if (samples.empty() || num_views == 0) return offsets;
  // Normal equations of sum over samples (g_a - g_b - (c_b - c_a))^2 + r * sum g^2: the matrix is
  // a graph Laplacian plus r on the diagonal, the same for the three channels.
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(4 * samples.size() + size_t(num_views));
  for (const SeamSample& s : samples) {
    entries.emplace_back(s.view_a, s.view_a, 1.0);
    entries.emplace_back(s.view_b, s.view_b, 1.0);
    entries.emplace_back(s.view_a, s.view_b, -1.0);
    entries.emplace_back(s.view_b, s.view_a, -1.0);
  }
  for (int64_t c = 0; c < num_views; ++c) entries.emplace_back(c, c, regularization);
  Eigen::SparseMatrix<double> A(num_views, num_views);
  A.setFromTriplets(entries.begin(), entries.end());
  Eigen::ConjugateGradient<Eigen::SparseMatrix<double>, Eigen::Lower | Eigen::Upper> solver;
  solver.setTolerance(1e-8);
  solver.setMaxIterations(2000);
  solver.compute(A);
  for (int channel = 0; channel < 3; ++channel) {
    Eigen::VectorXd b = Eigen::VectorXd::Zero(num_views);
    for (const SeamSample& s : samples) {
      const double step = double(s.color_b[channel]) - s.color_a[channel];
      b[s.view_a] += step;
      b[s.view_b] -= step;
    }
    const Eigen::VectorXd g = solver.solve(b);
    for (int64_t c = 0; c < num_views; ++c) offsets[c][channel] = float(g[c]);
  }
  return offsets;
}

const std::array<float, 3>* ColorIn(const std::vector<std::vector<Candidate>>& candidates, int64_t f,
                                    int32_t view) {
  for (const Candidate& c : candidates[f]) {
    if (c.view == view) return &c.color;
  }
  return nullptr;
}

LocalLevelling LevelSeamsLocally(const Mesh& mesh, const std::vector<cvis_mvs_view>& views,
                                 const std::vector<Chart>& charts, const std::vector<int64_t>& chart_of,
                                 const std::vector<std::array<int64_t, 3>>& neighbours,
                                 const std::vector<std::vector<Candidate>>& candidates,
                                 const std::vector<std::array<float, 3>>& offsets, double sigma,
                                 int num_threads) {
  LocalLevelling result;
  result.vertices.resize(charts.size());
  result.corrections.resize(charts.size());
  // Unknowns: one correction per (chart, vertex), numbered chart by chart; each chart's vertices
  // sorted, so (chart, vertex) -> unknown is a binary search.
  std::vector<int64_t> first(charts.size() + 1, 0);
  for (size_t c = 0; c < charts.size(); ++c) {
    auto& list = result.vertices[c];
    if (charts[c].view >= 0) {
      for (int64_t f : charts[c].faces) {
        for (int k = 0; k < 3; ++k) list.push_back(mesh.Corner(f, k));
      }
      std::sort(list.begin(), list.end());
      list.erase(std::unique(list.begin(), list.end()), list.end());
    }
    first[c + 1] = first[c] + int64_t(list.size());
  }
  const int64_t n = first.back();
  if (n == 0) return result;  // no chart has a view
  auto unknown = [&](int64_t chart, int64_t vertex) {
    const auto& list = result.vertices[chart];
    return first[chart] + (std::lower_bound(list.begin(), list.end(), vertex) - list.begin());
  };
  auto level = [&](int32_t view, const std::array<float, 3>& color) {
    return std::array<double, 3>{double(color[0]) + offsets[view][0], double(color[1]) + offsets[view][1],
                                 double(color[2]) + offsets[view][2]};
  };

  // Normal equations of
  //   sum_faces area/3 |g - (consensus - own)|^2                      (faces other views see too)
  // + kSeamWeight sum_seam faces area/3 |g_own - g_other - (other - own)|^2  (both sides of a seam
  //                                                                  agree on the face beside it)
  // + sigma^2 sum_edges 1/2 |g_v - g_w|^2                              (smooth within a chart)
  // + kPull sum_faces area/3 |g|^2                                     (fades away from seams and
  //                                                                  consensus, where nothing says)
  // with areas in pixels of the chart's view. The data and the seams are face colours, not
  // vertex colours: a vertex on a crease has no colour of its own (each side is lit
  // differently).
  constexpr double kSeamWeight = 10.0;
  constexpr double kPull = 1e-3;
  const double s2 = sigma * sigma;
  // Diagonal summed here, off-diagonal entries as triplets (summed by setFromTriplets): six per
  // face instead of fifteen keeps raw's millions of faces within memory.
  std::vector<double> diagonal(size_t(n), 1e-9);  // definite everywhere
  std::vector<Eigen::Triplet<double>> entries;
  entries.reserve(6 * size_t(mesh.num_faces));
  std::vector<std::array<double, 3>> rhs(size_t(n), {0.0, 0.0, 0.0});
  for (size_t c = 0; c < charts.size(); ++c) {
    const Chart& chart = charts[c];
    if (chart.view < 0) continue;
    const cvis_mvs_view& view = views[chart.view];
    for (int64_t f : chart.faces) {
      int64_t index[3];
      double u[3], v[3];
      for (int k = 0; k < 3; ++k) {
        double depth;
        index[k] = unknown(int64_t(c), mesh.Corner(f, k));
        Project(view, mesh.Vertex(mesh.Corner(f, k)), &u[k], &v[k], &depth);
      }
      const double share = 0.5 * std::abs((u[1] - u[0]) * (v[2] - v[0]) - (u[2] - u[0]) * (v[1] - v[0])) / 3;
      const auto* own_color = ColorIn(candidates, f, chart.view);
      if (own_color == nullptr) continue;
      const auto own = level(chart.view, *own_color);
      // A face only its own view sees says nothing about the others' colour.
      std::array<double, 3> mean{0, 0, 0};
      double total = 0;
      for (const Candidate& candidate : candidates[f]) {
        const auto color = level(candidate.view, candidate.color);
        total += candidate.quality;
        for (int k = 0; k < 3; ++k) mean[k] += double(candidate.quality) * color[k];
      }
      const double data = candidates[f].size() >= 2 && total > 0 ? share : 0.0;
      for (int k = 0; k < 3; ++k) {
        diagonal[size_t(index[k])] += data + kPull * share;
        for (int channel = 0; channel < 3; ++channel) {
          if (data > 0) rhs[size_t(index[k])][channel] += data * (mean[channel] / total - own[channel]);
        }
        const int64_t a = index[k], b = index[(k + 1) % 3];
        const double w = 0.5 * s2;
        diagonal[size_t(a)] += w;
        diagonal[size_t(b)] += w;
        entries.emplace_back(a, b, -w);
        entries.emplace_back(b, a, -w);
      }
      // Seams: this face, beside another chart, seen by that chart's view too.
      for (int k = 0; k < 3; ++k) {
        const int64_t g = neighbours[f][k];
        if (g < 0 || chart_of[g] == int64_t(c) || charts[chart_of[g]].view < 0) continue;
        const int64_t other_chart = chart_of[g];
        const int32_t other_view = charts[other_chart].view;
        const auto* other_color = ColorIn(candidates, f, other_view);
        if (other_color == nullptr) continue;
        const auto other = level(other_view, *other_color);
        const double w = kSeamWeight * share;
        for (int64_t vertex : {mesh.Corner(f, k), mesh.Corner(f, (k + 1) % 3)}) {
          const int64_t i = unknown(int64_t(c), vertex), j = unknown(other_chart, vertex);
          diagonal[size_t(i)] += w;
          diagonal[size_t(j)] += w;
          entries.emplace_back(i, j, -w);
          entries.emplace_back(j, i, -w);
          for (int channel = 0; channel < 3; ++channel) {
            const double step = other[channel] - own[channel];  // g_i - g_j should be this
            rhs[size_t(i)][channel] += w * step;
            rhs[size_t(j)][channel] -= w * step;
          }
        }
      }
    }
  }
  for (int64_t i = 0; i < n; ++i) entries.emplace_back(i, i, diagonal[size_t(i)]);
  Eigen::SparseMatrix<double> A(n, n);
  A.setFromTriplets(entries.begin(), entries.end());
  entries = {};
  Eigen::ConjugateGradient<Eigen::SparseMatrix<double>, Eigen::Lower | Eigen::Upper> solver;
  // A relative residual of 1e-3 is a hundredth of a level for a 10-level correction: a tighter
  // one takes several times the iterations for the same renders (docs/benchmarks.md).
  solver.setTolerance(1e-3);
  solver.setMaxIterations(1000);
  solver.compute(A);
  std::vector<Eigen::VectorXd> solution(3);
  ParallelFor(3, num_threads, 1, [&](int64_t begin, int64_t end, int) {
    for (int64_t channel = begin; channel < end; ++channel) {
      Eigen::VectorXd b(n);
      for (int64_t i = 0; i < n; ++i) b[i] = rhs[size_t(i)][channel];
      solution[channel] = solver.solve(b);
    }
  });
  for (size_t c = 0; c < charts.size(); ++c) {
    auto& corrections = result.corrections[c];
    corrections.resize(result.vertices[c].size());
    for (size_t i = 0; i < corrections.size(); ++i) {
      for (int channel = 0; channel < 3; ++channel) {
        corrections[i][channel] = float(solution[channel][first[c] + int64_t(i)]);
      }
    }
  }
  return result;
}

std::vector<std::array<float, 3>> CorrectionTexels(const Mesh& mesh, const Chart& chart,
                                                   const std::vector<int64_t>& vertices,
                                                   const std::vector<std::array<float, 3>>& corrections,
                                                   const float* uvs, int page_size) {
  auto correction_of = [&](int64_t vertex) -> const std::array<float, 3>& {
    return corrections[size_t(std::lower_bound(vertices.begin(), vertices.end(), vertex) - vertices.begin())];
  };
  // Barycentric inside faces, and elsewhere (padding, texels between faces) the nearest covered
  // texel's, so mip-maps see no step at the chart's border.
  const int width = chart.width, height = chart.height;
  std::vector<std::array<float, 3>> field(size_t(width) * height, {0.0f, 0.0f, 0.0f});
  std::vector<uint8_t> covered(size_t(width) * height, 0);
  std::vector<int32_t> queue;
  for (int64_t f : chart.faces) {
    double tx[3], ty[3];
    for (int k = 0; k < 3; ++k) {
      tx[k] = double(uvs[6 * f + 2 * k]) * page_size - chart.x;
      ty[k] = double(uvs[6 * f + 2 * k + 1]) * page_size - chart.y;
    }
    const double det = (tx[1] - tx[0]) * (ty[2] - ty[0]) - (tx[2] - tx[0]) * (ty[1] - ty[0]);
    if (std::abs(det) < 1e-12) continue;
    const int x0 = std::max(0, int(std::floor(std::min({tx[0], tx[1], tx[2]}))));
    const int x1 = std::min(width - 1, int(std::ceil(std::max({tx[0], tx[1], tx[2]}))));
    const int y0 = std::max(0, int(std::floor(std::min({ty[0], ty[1], ty[2]}))));
    const int y1 = std::min(height - 1, int(std::ceil(std::max({ty[0], ty[1], ty[2]}))));
    const auto& g0 = correction_of(mesh.Corner(f, 0));
    const auto& g1 = correction_of(mesh.Corner(f, 1));
    const auto& g2 = correction_of(mesh.Corner(f, 2));
    for (int y = y0; y <= y1; ++y) {
      for (int x = x0; x <= x1; ++x) {
        const double px = x + 0.5, py = y + 0.5;
        const double b1 = ((px - tx[0]) * (ty[2] - ty[0]) - (tx[2] - tx[0]) * (py - ty[0])) / det;
        const double b2 = ((tx[1] - tx[0]) * (py - ty[0]) - (px - tx[0]) * (ty[1] - ty[0])) / det;
        const double b0 = 1 - b1 - b2;
        if (b0 < -1e-6 || b1 < -1e-6 || b2 < -1e-6) continue;
        const size_t t = size_t(y) * width + x;
        for (int c = 0; c < 3; ++c) field[t][c] = float(b0 * g0[c] + b1 * g1[c] + b2 * g2[c]);
        if (!covered[t]) {
          covered[t] = 1;
          queue.push_back(int32_t(t));
        }
      }
    }
  }
  // Breadth first from the covered texels.
  for (size_t head = 0; head < queue.size(); ++head) {
    const int32_t t = queue[head];
    const int x = t % width, y = t / width;
    const int32_t next[4] = {x > 0 ? t - 1 : -1, x + 1 < width ? t + 1 : -1, y > 0 ? t - width : -1,
                             y + 1 < height ? t + width : -1};
    for (int32_t u : next) {
      if (u < 0 || covered[u]) continue;
      covered[u] = 1;
      field[u] = field[t];
      queue.push_back(u);
    }
  }
  return field;
}

}  // namespace cvis::texture
