// Keeps Ceres's glog warnings off the terminal.
#ifndef CVIS_OPTIM_CERES_LOGGING_H
#define CVIS_OPTIM_CERES_LOGGING_H

#include <glog/logging.h>

#include <algorithm>

namespace cvis {

// Ceres reports a linear solve that failed on a near-degenerate step (a two-view refinement of
// a pair with little parallax, a block of a weak image) as a glog warning on stderr, and glog
// prefixes a notice that it was never initialised: lines a person watching a run cannot act on,
// while the solver's summary, which the caller reads, already says whether it converged.
// Errors still print.
inline void QuietCeresWarnings() {
  FLAGS_minloglevel = std::max(FLAGS_minloglevel, static_cast<int>(google::GLOG_ERROR));
}

}  // namespace cvis

#endif
