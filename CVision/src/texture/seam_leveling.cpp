// Global seam levelling: views differ in exposure and white balance, so two charts meeting at a
// seam show a step. One colour offset per view, chosen so that the colours on both sides of
// every seam agree in the least-squares sense (Waechter et al.'s global adjustment, with one
// offset per view instead of per chart vertex), with a weak pull towards zero that fixes the
// otherwise free overall level.
#include <Eigen/IterativeLinearSolvers>
#include <Eigen/SparseCore>

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

}  // namespace cvis::texture
