// Internal to the isa library: the .npuasm lexer (tokens with columns, quoted strings,
// key=value splitting) and the integer expression evaluator.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "isa/instruction.h"

namespace npu::isa::lex {

struct Token {
  std::string text;
  int col;  // 1-based
};

// Where the assembler is; fail() throws IsaError "<origin>:<line>:<col>: <message>".
struct Ctx {
  std::string origin;
  int line = 0;
  [[noreturn]] void fail(int col, const std::string& msg) const;
};

bool is_ident_start(char c);
bool is_ident_char(char c);

// Splits a line into whitespace-separated tokens; stops at an unquoted # or ;.
std::vector<Token> tokenize(std::string_view line, const Ctx& ctx);
// "text" with \" \\ \n \t \xHH escapes -> text; an unquoted string is returned as is.
std::string unquote(const std::string& s, int col, const Ctx& ctx);

struct KeyValue {
  std::string key, value;  // value still quoted
  int key_col, value_col;
  bool has_eq;
};
KeyValue split_kv(const Token& t);

using Symbols = std::map<std::string, std::int64_t>;
// Sums and differences of products of numbers (decimal, 0x, 0b, '_' separators) and symbols.
std::int64_t eval_expr(std::string_view s, int col, const Ctx& ctx, const Symbols& syms);

}  // namespace npu::isa::lex
