// What `npusim calibrate` fits to: measured latencies of models on one device, read from
// `npusim compare --json` output or from a small CSV of published figures
//   model,input_shape,precision,latency_ms[,layer,layer_ms]
// (one header line allowed, `#` starts a comment line). Every problem is one line naming the
// file (and line) and what is wrong.
#pragma once
#include <string>
#include <vector>

namespace npu::calibrate {

// One layer's measured time. `layer` names a simulated layer or an ONNX node of the model
// (matched through the compiler's fusion record); `sim_layers` is filled when the source
// already matched it (compare --per-layer rows).
struct MeasuredLayer {
  std::string layer;
  std::vector<std::string> sim_layers;
  double time_us = 0;
  std::string origin;  // file:line
};

// One model as the simulator compiles it: file, input shape and precision.
struct ModelCase {
  std::string model_path;   // resolved, as opened
  std::string input_shape;  // "1x3x224x224", "name=1x3x224x224", or "" for the model's own
  std::string precision;    // "int8" | "fp16"
  std::vector<double> latencies_us;  // every measurement of the whole model (e.g. two runtimes)
  std::vector<std::string> origins;  // where each came from
  std::vector<MeasuredLayer> layers;
  // Which base config of a fit over several devices simulates it (calibration.h); 0 with one.
  std::size_t config = 0;
  std::string label() const;         // file stem [+ shape] [+ precision when fp16]
};

// Reads one file (.json: compare output; anything else: CSV) and merges its cases into
// `cases` (same file, shape, precision and config = same case). `device`: which real device of
// a compare JSON to take when it measured several ("" = the only one); `config`: the cases'
// ModelCase::config.
void read_measurements(const std::string& path, const std::string& device, std::vector<ModelCase>& cases,
                       std::size_t config = 0);

// A relative error as reports print it: `fraction` 0.052 -> "+5.2%".
std::string signed_percent(double fraction);

}  // namespace npu::calibrate
