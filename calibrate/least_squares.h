// Bounded nonlinear least squares for a handful of parameters: Levenberg-Marquardt with a
// forward-difference Jacobian, steps projected onto the box [lower, upper]. The residual
// function is a simulation (seconds, piecewise constant at the cycle level), so the
// difference step is large compared with rounding and every evaluation counts.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace npu::calibrate {

struct LeastSquaresProblem {
  std::vector<double> start, lower, upper;  // per parameter, in the fit's own coordinates
  std::vector<double> difference_step;      // per parameter, > 0
  // Residuals at a point; the same length at every point.
  std::function<std::vector<double>(const std::vector<double>&)> residuals;
  // Maps a point to the nearest one the model can take (integer keys); identity when empty.
  std::function<std::vector<double>(const std::vector<double>&)> snap;
  int max_iterations = 40;
  double step_tolerance = 1e-5;   // converged when no coordinate moves more than this
  double cost_tolerance = 1e-10;  // ... or the cost falls by less than this fraction
};

struct LeastSquaresResult {
  std::vector<double> x;
  double cost = 0;  // half the sum of squared residuals at x
  int iterations = 0;
  bool converged = false;
  std::string reason;  // why it stopped
};

LeastSquaresResult least_squares(const LeastSquaresProblem& problem);

}  // namespace npu::calibrate
