// Inputs placed where a pre-processing buffer might be: the loads follow the input, the
// results stay the same, and a start below dma.min_alignment_bytes costs one bounce copy.
#include <catch2/catch.hpp>

#include "costmodel/dma_cost.h"
#include "hwconfig/hardware_config.h"
#include "isa/assembler.h"
#include "runtime/input_placement.h"
#include "runtime/session.h"

using namespace npu;
using namespace npu::runtime;

namespace {

// x (256 int8) -> clip to [0, 127] -> out; x is read by two loads of 128 bytes.
const char* kClipProgram = R"(
.tensor name=x   role=input  dtype=int8 shape=1x256 layout=NC addr=0x1000 scale=0.5 zero_point=0
.tensor name=out role=output dtype=int8 shape=1x256 layout=NC addr=0x2000 scale=0.5 zero_point=0
  load channel=0 ddr_addr=0x1000 sram_addr=0 len0=128
  load channel=0 ddr_addr=0x1080 sram_addr=128 len0=128 push=vector
  clip dtype=0 dst_addr=256 src_addr=0 count=256 lo=0 hi=127 pop=load push=store
  store channel=0 ddr_addr=0x2000 sram_addr=256 len0=256 pop=vector
  halt
)";

container::CompiledModel clip_model() {
  container::CompiledModel m;
  m.program = isa::assemble(kClipProgram, "clip.npuasm");
  container::Step step;
  step.npu = {0, 5, {"x"}, {"out"}};
  m.steps = {step};
  m.layers = {{"clip", "Clip", "npu", 0, 0, 5, 512, {"clip"}, {}}};
  m.model_inputs = {"x"};
  m.model_outputs = {"out"};
  return m;
}

// Memory that costs nothing, so that the bounce copy is the only difference.
HardwareConfig config_with_alignment(int min_alignment_bytes) {
  auto c = load_hardware_config(std::string(NPUSIM_SOURCE_DIR) + "/configs/default.yaml");
  c.ddr.model = npu::DdrModel::Ideal;
  c.dma.min_alignment_bytes = min_alignment_bytes;
  validate(c);
  return c;
}

HostTensor ramp256() {
  HostTensor x = make_host_tensor(ElementType::Float32, {1, 256});
  for (int i = 0; i < 256; ++i) x.data<float>()[i] = 0.5f * static_cast<float>(i % 64) - 16.0f;
  return x;
}

}  // namespace

TEST_CASE("misalign_inputs: the input and every load inside it move by the same distance", "[placement]") {
  auto program = clip_model().program;
  const auto notes = misalign_inputs(program, {"x"}, 16, 1ull << 32);
  REQUIRE(notes.size() == 1);
  // Above everything placed (out ends at 0x2100): the next 4 KiB boundary is 0x3000.
  CHECK(program.tensors[0].ddr_addr == 0x3010);
  CHECK(program.code[0].get(isa::Field::ddr_addr) == 0x3010);
  CHECK(program.code[1].get(isa::Field::ddr_addr) == 0x3090);
  CHECK(program.code[3].get(isa::Field::ddr_addr) == 0x2000);  // the output's store stays
  CHECK(program.tensors[1].ddr_addr == 0x2000);
  CHECK(notes[0].find("0x3010") != std::string::npos);

  auto unchanged = clip_model().program;
  CHECK(misalign_inputs(unchanged, {"x"}, 0, 1ull << 32).empty());
  CHECK(unchanged.code == clip_model().program.code);
}

TEST_CASE("misalign_inputs: bad requests are one line naming the input", "[placement]") {
  auto program = clip_model().program;
  CHECK_THROWS_WITH(misalign_inputs(program, {"y"}, 16, 1ull << 32), "input 'y': not in the program's tensor table");
  CHECK_THROWS_WITH(misalign_inputs(program, {"x"}, 4096, 1ull << 32),
                    Catch::Contains("must be below 4096"));
  CHECK_THROWS_WITH(misalign_inputs(program, {"x"}, 16, 0x3000),
                    Catch::Contains("input 'x': a buffer at 0x3010 of 256 bytes exceeds the DDR capacity"));
}

TEST_CASE("session: a misaligned input gives the same outputs and costs the bounce copies", "[placement]") {
  const auto config = config_with_alignment(64);
  Session aligned(clip_model(), config);
  SessionOptions at16;
  at16.input_misalignment_bytes = 16;
  Session misaligned(clip_model(), config, at16);
  SessionOptions at64;
  at64.input_misalignment_bytes = 64;  // a multiple of the alignment: no bounce
  Session still_aligned(clip_model(), config, at64);

  const auto a = aligned.run({{"x", ramp256()}});
  const auto m = misaligned.run({{"x", ramp256()}});
  const auto s = still_aligned.run({{"x", ramp256()}});
  REQUIRE(m.outputs.size() == 1);
  CHECK(m.outputs[0].second.bytes == a.outputs[0].second.bytes);
  CHECK(s.outputs[0].second.bytes == a.outputs[0].second.bytes);

  CHECK(a.record.npu.dma_channels[0].bounce_copies == 0);
  CHECK(m.record.npu.dma_channels[0].bounce_copies == 2);
  CHECK(s.record.npu.dma_channels[0].bounce_copies == 0);
  // The loads run one after the other on channel 0 and the clip waits for both.
  CHECK(m.record.npu.cycles == a.record.npu.cycles + 2 * cost::bounce_cycles(128, config.dma));
  CHECK(s.record.npu.cycles == a.record.npu.cycles);
  REQUIRE(!m.record.notes.empty());
  CHECK(m.record.notes[0].find("16 bytes past a 4096 byte boundary") != std::string::npos);

  // With an alignment the misaligned buffer meets, nothing bounces.
  Session relaxed(clip_model(), config_with_alignment(16), at16);
  CHECK(relaxed.run({{"x", ramp256()}}).record.npu.dma_channels[0].bounce_copies == 0);
}
