// isa/ISA.md, generated from instruction_set.def (the test isa_tests checks it is current).
#include <cctype>

#include "isa/asm_common.h"
#include "isa/assembler.h"
#include "isa/operands.h"

namespace npu::isa {
namespace {

// Markdown-safe inline text: '*' would start emphasis inside expressions like i3*stride.
std::string md(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '*' || c == '|' || c == '\\') out += '\\';
    out += c;
  }
  return out;
}

std::string lower(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// An expression as inline code inside a table cell (a '|' would end the cell).
std::string code(std::string_view s) {
  std::string out = "`";
  for (char c : s) {
    if (c == '|') out += '\\';
    out += c;
  }
  return out + "`";
}

// "(auto rows, auto cols)" -> "(rows, cols)"
std::string parameter_names(std::string_view parameters) {
  std::string out(parameters);
  for (std::size_t at; (at = out.find("auto ")) != std::string::npos;) out.erase(at, 5);
  return out;
}

const char* const kOperands = R"(
## Operands

An instruction's operands are lines of the table too (`NPU_OPERAND`): the address field that
names each one, the memory it lies in, whether the instruction reads or writes it, when it is
there, and how many bytes from the address it spans — an expression of the instruction's
fields in unsigned 64-bit arithmetic (a difference below 0 is 0, a quotient by 0 is 0). From
these lines come the simulator's checks before a program runs, the scratchpad traffic it
counts, and the footprints from which the compiler derives dependency tokens (and which
`npusim sim --check-hazards` checks a run against). The first operand that breaks a rule is a
one-line error naming the instruction, its mnemonic and the operand:

- a scratchpad operand starts at a multiple of `sram.alignment_bytes` and ends within
  `sram.capacity_bytes` (`instruction #0 (gemm): a_addr 0x21 is not a multiple of
  sram.alignment_bytes (64)`); a DDR operand ends within `ddr.capacity_bytes`;
- a size past 2^64 is rejected, not wrapped (`instruction #0 (reduce): src_addr spans outer *
  length * inner * element_size(dtype) bytes, beyond 2^64 (outer = 16777215, ...)`);
- what an instruction writes may overlap a read operand in the same memory only as that
  operand's overlap rule allows: `in_place`, only starting at the same address (element for
  element in place); `disjoint`, not at all; the rule is left out of the tables below when the
  overlap is not checked.

An operand whose condition does not hold is not there. **moves** is the bytes an operand
actually transfers when that differs from its span (a strided DMA run, a broadcast operand):
the scratchpad traffic counts those (the MAC array's operands as often as its dataflow
streams them, sim/README.md "Energy").

The sizes use these functions (`NPU_SIZE_FUNCTION`):

| function | value | meaning |
|---|---|---|
| `element_size(dtype)` | the bytes column of [Data types](#data-types) | bytes of one element of a DType |
)";

std::string operand_section(Opcode op) {
  const OperandRules rules = operand_rules(op);
  if (rules.size() == 0) return "";
  std::string out = "\n**Operands** ([rules](#operands)):\n\n| address | memory | access | bytes | notes |\n|---|---|---|---|---|\n";
  for (const OperandRule& r : rules) {
    std::string access = r.access == Access::Read ? "read" : "written";
    if (r.when != "always") access += " when " + code(r.when);
    std::string notes;
    if (r.moved != "bytes") notes = "moves " + code(r.moved);
    if (r.overlap != "unchecked") {
      const std::string rule = r.overlap == "in_place"   ? std::string("in place only (the output may start at its address, not overlap it otherwise)")
                               : r.overlap == "disjoint" ? std::string("the output must not overlap it")
                                                         : "overlap with the output: " + code(r.overlap);
      notes += (notes.empty() ? "" : "; ") + rule;
    }
    out += fmt::format("| `{}` | {} | {} | {} | {} |\n", field_info(r.address).name,
                       r.memory == Memory::Sram ? "scratchpad" : "DDR", access, code(r.bytes), notes);
  }
  return out;
}

std::string default_text(const FieldInfo& fi) {
  if (fi.kind == FieldKind::F) return text::format_float_bits(static_cast<std::uint32_t>(fi.default_bits));
  return std::to_string(fi.default_bits);
}

const char* const kIntro = R"(# npusim instruction set

> Generated from `isa/instruction_set.def` by `npu::isa::generate_isa_markdown()`; do not edit.
> Regenerate with `build/bin/isa_doc_gen > isa/ISA.md` (or `npusim isa-doc > isa/ISA.md`).

## Encoding

Every instruction is 256 bits (32 bytes). Bit `i` of an instruction is bit `i % 8` of byte
`i / 8` (little-endian bit order), and a field's value is stored with its least significant
bit at the field's lowest bit.

| bits | content |
|---|---|
| 0..7 | opcode |
| 8..11 | `pop` mask: dependency tokens consumed before the instruction starts |
| 12..15 | `push` mask: dependency tokens produced after the instruction finishes |
| 16.. | the instruction's fields, in the order listed below, packed without gaps |

All bits after an instruction's last field are zero; the decoder rejects an unknown opcode
or any set bit beyond the last field. Field kinds:

- **U** unsigned, range `[0, 2^w)`;
- **S** signed two's complement, range `[-2^(w-1), 2^(w-1))`, sign-extended when decoded;
- **F** IEEE-754 binary32 bits (always 32 bits wide).

Setting a value outside its field's range is an error (`IsaError` naming the instruction,
field, value and range), never a silent truncation.

## Dependency tokens

The controller dispatches instructions in program order to one queue per unit; the queues
run concurrently. Bit `i` of a mask names unit `i`:

)";

const char* const kSyntax = R"(
## Assembly syntax (`.npuasm`)

One statement per line. `#` or `;` starts a comment that runs to the end of the line.

- **Instruction**: `mnemonic field=value ... [pop=unit,unit] [push=unit]`. Omitted fields
  take the table default; `pop`/`push` list units by name (`load`, `compute`, `vector`,
  `store`) or `none`. An enum field takes a value's name (`act dtype=fp16 function=gelu`;
  a name wins over an `.equ` symbol of the same spelling) or a number. A field given twice, a field the instruction does not have, an
  unknown mnemonic or a value out of range is an error `origin:line:col: message`.
- **Label**: `name:` on its own line or before an instruction names the index of the next
  instruction (`Program::labels`).
- **Values**: integers in decimal, `0x` hex or `0b` binary, `_` allowed between digits
  (`0x1_0000`), negative with `-`; symbols defined by `.equ`; and left-to-right sums and
  differences of products of these, written without spaces (`BASE+0x40`, `ROWS*64-1`). Float (`F`) fields take a
  float literal (`0.5`, `-1e-3`, `inf`, `-inf`, hex floats), an integer expression, or raw
  bits as `raw:0x7fc00000` (how the disassembler writes NaNs).
- **Strings** (tensor names, layouts, labels) are bare if they contain only printable
  characters other than `" # ; = , \`, otherwise quoted with `\"`, `\\`, `\xHH` escapes.

| directive | meaning |
|---|---|
| `.equ NAME value` | defines symbol NAME (an integer expression) |
| `.tensor name=A role=input dtype=int8 shape=1x56x56x64 layout=NHWC [host_layout=NCHW] addr=0x10000 [size=N] [scale=0.5] [zero_point=0]` | a tensor table entry; `role` is `input`, `output`, `constant` or `intermediate`; `shape=scalar` for rank 0; `host_layout` is the layout of the host's tensor (`NCHW` with `layout=NHWC`: the runtime transposes; equal to `layout`: it copies), by default `layout` for inputs and outputs and empty (the host never sees it) otherwise; `layout="strided[s0,s1,...]"` (an input the host writes into the bytes of the Concat output that extends it, such as a decoder's KV cache: element i of the row-major shape at sum(i_a × s_a) elements from `addr`, `size` spanning first to last element); `size` defaults to the product of the shape times the element size |
| `.data addr=0x20000 [i8=1,2,-3] [i32=...] [f16=...] [f32=...] [hex=00ff...]` | a data segment written to DDR before the program starts; values are appended in order (fp16 converted from the float literals with round-to-nearest-even) |
| `.hex 00ff...` | appends bytes to the last `.data` or `.section` |
| `.section kind=100 [hex=...]` | an opaque section (kind >= 100) kept verbatim |

`disassemble()` writes every field of every instruction explicitly, floats in their
shortest round-trip form and data as hex, so `assemble(disassemble(p))` reproduces `p`
bit-exactly (labels are written sorted by instruction index). An example line:

```
)";

const char* const kContainer = R"(```

## Program container (`.npuprog`)

All integers little-endian.

| offset | size | content |
|---|---|---|
| 0 | 8 | magic `NPUPROG\0` |
| 8 | 4 | format version (u32, currently {version}); a newer version is rejected with a clear message |
| 12 | 4 | section count N (u32) |
| 16 | 8 | total file size in bytes (u64); a shorter file is reported as truncated |
| 24 | 8 | FNV-1a 64 of bytes [0, 24) followed by bytes [32, file size); a mismatch is reported as corruption |
| 32 | 20 N | section table: N x {kind u32, offset u64, size u64}; each section lies after the table and inside the file |

| kind | section | payload |
|---|---|---|
| 1 | code | instructions, 32 bytes each, in program order |
| 2 | data | u32 count, then per segment: u64 DDR address, u64 size, bytes |
| 3 | tensor table | u32 count, then per tensor: string name, u8 role (0 input, 1 output, 2 constant, 3 intermediate), u8 dtype, u32 rank, rank x i64 dims, string layout, string host layout (since version 3; empty for values the host never sees), u64 DDR address, u64 size in bytes, f32 scale, i32 zero point |
| 4 | labels | u32 count, then per label: string name, u32 instruction index (at most the instruction count) |
| 5..99 | reserved | skipped by readers that do not know them |
| >= 100 | opaque | owned by other libraries (e.g. the compiler's CPU segments), kept verbatim in `Program::extra` |

Strings are a u32 byte length followed by the bytes. The loader checks every offset, size,
count and string length against the bytes that are actually there; any error is an
`IsaError` of the form `<origin>: <what is wrong>`.
)";

}  // namespace

std::string generate_isa_markdown() {
  std::string out = kIntro;
  out += "| bit | unit | instructions |\n|---|---|---|\n";
  for (int u = 0; u <= kQueueCount; ++u) {
    std::string ops;
    for (int o = 0; o < static_cast<int>(Opcode::kCount); ++o) {
      const OpcodeInfo& info = opcode_info(static_cast<Opcode>(o));
      if (static_cast<int>(info.unit) == u) ops += fmt::format("{}`{}`", ops.empty() ? "" : ", ", info.mnemonic);
    }
    out += fmt::format("| {} | {} | {} |\n", u < kQueueCount ? std::to_string(u) : "-",
                       unit_name(static_cast<Unit>(u)), ops);
  }
  out += R"(
An instruction with bit `i` set in `pop` waits until unit `i` has given its unit a token, and
consumes it; one with bit `j` set in `push` gives unit `j` a token when it finishes. Tokens
are counted per (producer, consumer) pair. With them a program expresses double buffering:
`load ... push=compute` / `gemm ... pop=load push=load` lets the next load overwrite a buffer
only after the gemm that read it. `control` instructions have no queue; their masks are
normally zero.

## Data types

| code | name | bytes |
|---|---|---|
)";
  for (int v = 0; v < enum_count<DType>(); ++v)
    out += fmt::format("| {} | {} | {} |\n", v, dtype_name(static_cast<DType>(v)),
                       dtype_bytes(static_cast<DType>(v)));

  out += R"(
## Address map

The DMA's `ddr_addr` is one address space; these fixed places in it (`NPU_CONSTANT`) name
where it reaches something other than DDR:

| constant | value | meaning |
|---|---|---|
)";
  for (const ConstantInfo& c : kConstants) out += fmt::format("| `{}` | {:#x} | {} |\n", c.name, c.value, c.doc);

  out += R"(
## Enumerations

Fields marked with an enum take one of its values (by name in assembly). A value outside
the enum is rejected before simulation (`instruction #7 (act): function = 31 is not a value
of ActFunction (0..30)`). **passes** is what a function costs the vector unit: the timing
formulas multiply by it.
)";
  for (int t = 1; t < static_cast<int>(EnumType::kCount); ++t) {
    const EnumInfo& e = enum_info(static_cast<EnumType>(t));
    bool costed = false;
    for (int v = 0; v < e.count; ++v) costed = costed || e.values[v].passes > 0;
    out += fmt::format("\n### {}\n\n{}.\n\n", e.name, e.doc);
    out += costed ? "| value | name | passes | meaning |\n|---|---|---|---|\n" : "| value | name | meaning |\n|---|---|---|\n";
    for (int v = 0; v < e.count; ++v) {
      const EnumValueInfo& x = e.values[v];
      if (costed)
        out += fmt::format("| {} | `{}` | {} | {} |\n", x.value, x.name, x.passes, md(x.doc));
      else
        out += fmt::format("| {} | `{}` | {} |\n", x.value, x.name, md(x.doc));
    }
  }

  out += kOperands;
  for (const SizeFunctionInfo& f : size_functions())
    out += fmt::format("| `{}{}` | {} | {} |\n", f.name, parameter_names(f.parameters), code(f.expression), md(f.doc));

  out += "\n## Instructions\n\n| opcode | mnemonic | unit | field bits used |\n|---|---|---|---|\n";
  for (int o = 0; o < static_cast<int>(Opcode::kCount); ++o) {
    const OpcodeInfo& info = opcode_info(static_cast<Opcode>(o));
    out += fmt::format("| {} | [`{}`](#{}) | {} | {} |\n", o, info.mnemonic, info.mnemonic, unit_name(info.unit),
                       info.used_bits - kHeaderBits);
  }
  for (int o = 0; o < static_cast<int>(Opcode::kCount); ++o) {
    const OpcodeInfo& info = opcode_info(static_cast<Opcode>(o));
    out += fmt::format("\n### {}\n\nOpcode {}, unit `{}`.\n\n{}\n\n**Timing:** {}\n\n", info.mnemonic, o,
                       unit_name(info.unit), md(info.semantics), md(info.timing));
    if (info.field_count == 0) {
      out += "No fields; bits 16..255 are zero.\n";
      continue;
    }
    out += "| field | bits | width | kind | default | description |\n|---|---|---|---|---|---|\n";
    for (int i = 0; i < info.field_count; ++i) {
      const FieldSlot& s = info.fields[i];
      const FieldInfo& fi = field_info(s.field);
      const char* kind = fi.kind == FieldKind::U ? "U" : fi.kind == FieldKind::S ? "S" : "F";
      std::string doc = md(fi.doc);
      std::string def = default_text(fi);
      if (s.enum_type != EnumType::None) {
        const EnumInfo& e = enum_info(s.enum_type);
        doc += fmt::format(": [{}](#{})", e.name, lower(e.name));
        def = std::string(enum_value_name(s.enum_type, fi.default_bits));
      }
      out += fmt::format("| `{}` | {}..{} | {} | {} | {} | {} |\n", fi.name, s.offset_bits,
                         s.offset_bits + s.width_bits - 1, s.width_bits, kind, def, doc);
    }
    out += fmt::format("\nBits {}..255 are zero.\n", info.used_bits);
    out += operand_section(static_cast<Opcode>(o));
  }
  out += kSyntax;
  Instruction example = make_instruction(Opcode::Gemm);
  example.set(Field::m, 64);
  example.set(Field::n, 64);
  example.set(Field::k, 64);
  example.pop = 1u << static_cast<int>(Unit::Load);
  example.push = 1u << static_cast<int>(Unit::Vector);
  out += disassemble(example) + "\n";
  std::string container = kContainer;
  container.replace(container.find("{version}"), 9, std::to_string(kProgramVersion));
  out += container;
  return out;
}

}  // namespace npu::isa
