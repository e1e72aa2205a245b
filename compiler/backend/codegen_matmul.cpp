// MatMul of two computed tensors (attention's Q*K^T and P*V, per head) on the MAC array: for
// each batch index (numpy-broadcast batch dims), tiles of m x n outputs with the whole
// reduction k. A's rows and B's rows or columns are gathered from DDR by strided loads in
// whatever order the layout pass left them: B with k innermost in memory (a transposed K) is
// loaded n x k and multiplied with b_transposed, so no transpose ever moves K. FP16 accumulates
// in fp32 and casts; INT8 accumulates (A - za)(B - zb) in int32 and requantizes per tensor.
#include <algorithm>
#include <cstring>
#include <optional>

#include "compiler/backend/codegen_context.h"
#include "compiler/backend/instruction_stream.h"
#include "compiler/backend/isa_limits.h"
#include "compiler/backend/matmul_params.h"
#include "compiler/backend/op_registry.h"
#include "compiler/quant/int8_layer_params.h"
#include "isa/field_limits.h"

namespace npu::compiler {
namespace {

using namespace isa_limits;

constexpr std::int64_t kGemmDimMax = isa::field_max(isa::Opcode::Gemm, isa::Field::m);
constexpr int kMaxSlots = 4;

// MatMul of two computed tensors: 2-D or more, a reduction the gemm's k field holds.
std::string matmul_rejection(const Graph& g, const Node& n, bool int8) {
  const auto& xs = g.tensor(n.inputs[0]).shape;
  const Tensor& b = g.tensor(n.inputs[1]);
  if (xs.size() < 2 || b.shape.size() < 2) return "1-D MatMul operand";
  if (xs.back() > kGemmKMax) return too_wide("reduction length", xs.back(), kGemmKMax, kGemmKBits);
  return "";
}

LayerCode generate_matmul(CodegenContext& ctx, const Node& n) {
  const Graph& g = ctx.graph;
  const MatMulGeometry geo = matmul_geometry(g, n);
  const Int8MatMulParams q = ctx.int8() ? int8_matmul_params(g, n) : Int8MatMulParams{};
  const DdrTensor& a = g.is_constant(n.inputs[0]) ? ctx.constant(n.inputs[0], q.a) : ctx.tensor(n.inputs[0]);
  const DdrTensor& b = g.is_constant(n.inputs[1]) ? ctx.constant(n.inputs[1], q.b) : ctx.tensor(n.inputs[1]);
  const DdrTensor& y = ctx.tensor(n.outputs[0]);
  const std::int64_t es = ctx.elem_bytes();
  const std::int64_t M = geo.m, N = geo.n, K = geo.k;
  const std::size_t ra = a.shape.size(), rb = b.shape.size();
  const std::int64_t a_row = a.strides[ra - 2];
  // B with its k axis innermost in memory goes in as n x k.
  const bool bt = b.strides[rb - 2] == 1 && K > 1 && N > 1;
  const std::int64_t b_stride = bt ? b.strides[rb - 1] : b.strides[rb - 2];  // between B's rows in SRAM order
  if (K > kGemmDimMax) throw CompileError(g.source + ": layer '" + n.name + "': reduction length " + std::to_string(K) + " exceeds the gemm's k field");

  // Values kept on chip are read and written in place, where a tile is one run there: A's rows
  // K elements apart, B's tile rows K (transposed) or N apart with the whole row in the tile,
  // the output's tile rows whole (or one). One the generator cannot take in place is read from
  // DDR when it is there too, else it is an error, which tells the scheduler to keep it in DDR.
  const std::string where = g.source + ": layer '" + n.name + "' (MatMul): ";
  auto home_of = [&](std::size_t input) -> std::optional<std::uint64_t> {
    if (g.is_constant(n.inputs[input])) return std::nullopt;
    return ctx.resident(n.inputs[input]);
  };
  std::optional<std::uint64_t> a_home = home_of(0), b_home = home_of(1), y_home = ctx.resident(n.outputs[0]);
  auto keep_in_ddr = [&](std::optional<std::uint64_t>& home, const std::string& value, bool in_place) {
    if (!home || in_place) return;
    if (!ctx.in_ddr(value)) throw CompileError(where + "'" + value + "' kept on chip only is not laid out for the gemm");
    home.reset();
  };
  if ((a_home || b_home || y_home) && ctx.part)
    throw CompileError(where + "values on chip need one engine");
  keep_in_ddr(a_home, n.inputs[0], a_row == K || M == 1);

  auto tile_bytes = [&](std::int64_t mc, std::int64_t nc) -> std::uint64_t {
    return ctx.align(static_cast<std::uint64_t>(mc * K * es)) + ctx.align(static_cast<std::uint64_t>(K * nc * es)) +
           ctx.align(static_cast<std::uint64_t>(mc * nc * 4)) + ctx.align(static_cast<std::uint64_t>(mc * nc * es));
  };
  auto need = [&](std::int64_t mc, std::int64_t nc) -> std::uint64_t { return 2 * tile_bytes(mc, nc) + ctx.alignment; };
  const std::int64_t side = std::max(1, ctx.config.mac_array.cols);
  std::int64_t nc = std::min(N, kGemmDimMax), mc = std::min(M, kGemmDimMax);
  const std::int64_t run_elems = static_cast<std::int64_t>(kDmaLen0Max) / es;
  nc = std::min(nc, run_elems);
  while (mc > 1 && need(mc, nc) > ctx.sram_bytes) mc = (mc + 1) / 2;
  while (nc > 1 && need(mc, nc) > ctx.sram_bytes) nc = nc > side ? std::max(side, (nc / 2 + side - 1) / side * side) : (nc + 1) / 2;
  if (need(mc, nc) > ctx.sram_bytes)
    throw CompileError(g.source + ": layer '" + n.name + "' (MatMul): one row and column with reduction " + std::to_string(K) +
                       " need " + std::to_string(need(1, 1)) + " bytes of SRAM; the scratchpad has " + std::to_string(ctx.sram_bytes));

  // Every tile's operand or output in place must start on the scratchpad's alignment, as the
  // instructions' addresses must.
  const std::int64_t bb0 = ctx.part ? ctx.part->begin : 0, bb1 = ctx.part ? ctx.part->end : geo.batch;
  auto aligned = [&](const std::string& value, std::uint64_t home, std::uint64_t base, auto offset) {
    for (std::int64_t bi = bb0; bi < bb1; ++bi)
      for (std::int64_t m0 = 0; m0 < M; m0 += mc)
        for (std::int64_t n0 = 0; n0 < N; n0 += nc)
          if (ctx.home_addr(value, home, base + static_cast<std::uint64_t>(offset(bi, m0, n0) * es)) % ctx.alignment)
            return false;
    return true;
  };
  if (a_home)
    keep_in_ddr(a_home, n.inputs[0], aligned(n.inputs[0], *a_home, a.addr, [&](std::int64_t bi, std::int64_t m0, std::int64_t) {
                  return geo.a_batch_offset[static_cast<std::size_t>(bi)] + m0 * a_row;
                }));
  keep_in_ddr(b_home, n.inputs[1], bt ? b_stride == K : nc == N && b_stride == N);
  if (b_home)
    keep_in_ddr(b_home, n.inputs[1], aligned(n.inputs[1], *b_home, b.addr, [&](std::int64_t bi, std::int64_t, std::int64_t n0) {
                  return geo.b_batch_offset[static_cast<std::size_t>(bi)] + n0 * (bt ? b_stride : 1);
                }));
  if (y_home && (!(nc == N || M == 1) || !aligned(n.outputs[0], *y_home, y.addr, [&](std::int64_t bi, std::int64_t m0, std::int64_t n0) {
                   return bi * M * N + m0 * N + n0;
                 })))
    throw CompileError(where + "an output on chip needs whole aligned rows per tile");

  // Tiles rotate through `slots` slots of each buffer: two at least (double buffering); up to four when the
  // region holds them, so the loads of the next tiles (small ones, per head in attention, each
  // paying its DMA setup and latency) run ahead on both DMA channels while the array works.
  // The dependency pass orders slot reuse from the addresses.
  const std::int64_t batches = ctx.part ? ctx.part->size() : geo.batch;
  const std::uint64_t tiles_total = static_cast<std::uint64_t>(batches) * static_cast<std::uint64_t>((M + mc - 1) / mc) *
                                    static_cast<std::uint64_t>((N + nc - 1) / nc);
  int slots = 2;
  while (slots < kMaxSlots && static_cast<std::uint64_t>(slots) < tiles_total &&
         (slots + 1) * tile_bytes(mc, nc) + ctx.alignment <= ctx.sram_bytes)
    ++slots;
  LayerCode out;
  LayerMapping& map = out.mapping;
  map.unit = TileUnit::Array;
  map.dataflow = ctx.config.mac_array.dataflow;
  // A multi-engine part (matmul_split_extent) is a range of batch indices: attention's heads.
  const std::int64_t b0 = ctx.part ? ctx.part->begin : 0, b1 = ctx.part ? ctx.part->end : geo.batch;
  map.loops = {{LoopDim::Batch, b1 - b0, 1}, {LoopDim::M, M, mc}, {LoopDim::N, N, nc}};
  map.region_base = ctx.sram_base;  // the layer's region (compiler/README.md, generator contract)
  std::uint64_t at = ctx.sram_base;
  const std::uint64_t params_at = map.place(BufferRole::Params, 0, ctx.alignment, at);
  for (int i = 0; i < slots; ++i) {
    map.place(BufferRole::Operand, 0, ctx.align(static_cast<std::uint64_t>(mc * K * es)), at);
    map.place(BufferRole::Operand, 1, ctx.align(static_cast<std::uint64_t>(K * nc * es)), at);
    map.place(BufferRole::Accumulator, 0, ctx.align(static_cast<std::uint64_t>(mc * nc * 4)), at);
    map.place(BufferRole::Output, 0, ctx.align(static_cast<std::uint64_t>(mc * nc * es)), at);
  }
  const MappingBuffer &a_at = map.buffer(BufferRole::Operand, 0), &b_at = map.buffer(BufferRole::Operand, 1),
                      &acc_at = map.buffer(BufferRole::Accumulator), &o_at = map.buffer(BufferRole::Output);
  std::uint64_t params_ddr = 0;
  if (ctx.int8()) {
    std::vector<std::uint8_t> blob(8);
    std::memcpy(blob.data(), &q.requant.multiplier, 4);
    std::memcpy(blob.data() + 4, &q.requant.shift, 4);
    params_ddr = ctx.add_data(std::move(blob));
  }
  // The stages the tiles use: no load when both operands are on chip, no store when the output
  // stays on chip alone.
  const bool loads = !(a_home && b_home), stores = !y_home || ctx.in_ddr(n.outputs[0]);
  std::vector<Unit> chain;
  if (loads) chain.push_back(Unit::Load);
  chain.insert(chain.end(), {Unit::Compute, Unit::Vector});
  if (stores) chain.push_back(Unit::Store);
  LayerStream stream(chain, false);
  if (ctx.int8()) {
    std::vector<isa::Instruction> params_load;
    emit_linear_load(params_load, params_ddr, params_at, 8, ctx.alignment);
    stream.load_first(std::move(params_load));
  }
  std::int64_t t = 0;
  for (std::int64_t bi = b0; bi < b1; ++bi) {
    const std::int64_t a_off = geo.a_batch_offset[static_cast<std::size_t>(bi)];
    const std::int64_t b_off = geo.b_batch_offset[static_cast<std::size_t>(bi)];
    const std::int64_t y_off = bi * M * N;
    for (std::int64_t m0 = 0; m0 < M; m0 += mc)
      for (std::int64_t n0 = 0; n0 < N; n0 += nc, ++t) {
        const std::int64_t tm = std::min(mc, M - m0), tn = std::min(nc, N - n0);
        TileStages& st = stream.new_tile();
        DmaBox la;  // tm rows of K contiguous elements
        la.ddr_addr = a.addr + static_cast<std::uint64_t>((a_off + m0 * a_row) * es);
        la.sram_addr = a_at.at(t);
        la.run_bytes = static_cast<std::uint64_t>(K * es);
        la.runs = static_cast<std::uint64_t>(tm);
        la.ddr_stride = static_cast<std::uint64_t>(a_row * es);
        la.sram_stride = la.run_bytes;
        std::uint64_t a_src = a_at.at(t), b_src = b_at.at(t);
        if (a_home) {
          a_src = ctx.home_addr(n.inputs[0], *a_home, la.ddr_addr);
        } else {
          emit_dma(st.load, Opcode::Load, la, ctx.alignment);
          out.planned_ddr_bytes += la.run_bytes * la.runs;
        }
        DmaBox lb;  // bt: tn rows of K; else K rows of tn
        lb.ddr_addr = b.addr + static_cast<std::uint64_t>((b_off + n0 * (bt ? b_stride : 1)) * es);
        lb.sram_addr = b_at.at(t);
        lb.run_bytes = static_cast<std::uint64_t>((bt ? K : tn) * es);
        lb.runs = static_cast<std::uint64_t>(bt ? tn : K);
        lb.ddr_stride = static_cast<std::uint64_t>(b_stride * es);
        lb.sram_stride = lb.run_bytes;
        if (b_home) {
          b_src = ctx.home_addr(n.inputs[1], *b_home, lb.ddr_addr);
        } else {
          emit_dma(st.load, Opcode::Load, lb, ctx.alignment);
          out.planned_ddr_bytes += lb.run_bytes * lb.runs;
        }
        st.compute.push_back(make(Opcode::Gemm, {{Field::mac_dtype, static_cast<std::int64_t>(ctx.int8() ? isa::MacDType::Int8 : isa::MacDType::Fp16)},
                                                 {Field::a_addr, addr(a_src)}, {Field::b_addr, addr(b_src)},
                                                 {Field::c_addr, addr(acc_at.at(t))}, {Field::m, tm}, {Field::n, tn}, {Field::k, K},
                                                 {Field::b_transposed, bt ? 1 : 0}, {Field::a_zero_point, q.a.zero_point},
                                                 {Field::b_zero_point, q.b.zero_point}}));
        const std::uint64_t y_ddr = y.addr + static_cast<std::uint64_t>((y_off + m0 * N + n0) * es);
        const std::uint64_t y_dst = y_home ? ctx.home_addr(n.outputs[0], *y_home, y_ddr) : o_at.at(t);
        if (ctx.int8()) {
          st.vector.push_back(make(Opcode::Requantize, {{Field::dst_addr, addr(y_dst)}, {Field::src_addr, addr(acc_at.at(t))},
                                                        {Field::param_addr, addr(params_at)}, {Field::count, tm * tn},
                                                        {Field::channels, 1}, {Field::zero_point, y.quant.zero_point},
                                                        {Field::clamp_min, -128}, {Field::clamp_max, 127}}));
        } else {
          st.vector.push_back(make(Opcode::Cast, {{Field::src_dtype, static_cast<std::int64_t>(isa::DType::Fp32)},
                                                  {Field::dst_dtype, static_cast<std::int64_t>(isa::DType::Fp16)},
                                                  {Field::dst_addr, addr(y_dst)}, {Field::src_addr, addr(acc_at.at(t))},
                                                  {Field::count, tm * tn}}));
        }
        out.macs += static_cast<std::uint64_t>(tm * tn * K);
        if (!stores) continue;
        DmaBox so;
        so.ddr_addr = y_ddr;
        so.sram_addr = y_dst;
        so.run_bytes = static_cast<std::uint64_t>(tn * es);
        so.runs = static_cast<std::uint64_t>(tm);
        so.ddr_stride = static_cast<std::uint64_t>(N * es);
        so.sram_stride = so.run_bytes;
        emit_dma(st.store, Opcode::Store, so, ctx.alignment);
        out.planned_ddr_bytes += so.run_bytes * so.runs;
      }
  }
  out.code = stream.finish();
  return out;
}

bool is_matmul(const Node& n) { return n.op_type == "MatMul"; }

// Engine parts (engine_split.h): ranges of batch indices (attention's heads), counted as
// output-channel units. On several engines both operands and the result stay in DDR (values on
// chip need one engine), and the parts' boxes say so conservatively: a part reads all
// of each input and is not known to have written any box of its output, so every layer
// around a split matmul meets the engines at a sync and reads the value from DDR.
std::int64_t matmul_split_extent(CodegenContext& ctx, const Node& n, LoopDim dim) {
  return dim == LoopDim::OutChannels ? matmul_geometry(ctx.graph, n).batch : 0;
}

std::int64_t matmul_channel_granule(CodegenContext&, const Node&) { return 1; }

ValueBox matmul_part_writes(CodegenContext&, const Node&, const EnginePart&) { return {}; }

ValueBox matmul_part_reads(CodegenContext& ctx, const Node& n, const EnginePart&, std::size_t input) {
  const DdrTensor& t = ctx.tensor(n.inputs[input]);
  return {0, t.h, 0, t.c};
}

const LayerSplitter kMatMulSplitter{matmul_split_extent, matmul_channel_granule, matmul_part_reads, matmul_part_writes};

}  // namespace

const NpuOpFamily& matmul_family() {
  static const NpuOpFamily family{"matmul", is_matmul,
                                  matmul_rejection, generate_matmul, nullptr,
                                  /*region_aware=*/true, /*reads_resident=*/true, /*writes_resident=*/true,
                                  &kMatMulSplitter};
  return family;
}

}  // namespace npu::compiler
