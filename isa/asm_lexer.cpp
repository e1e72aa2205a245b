#include "isa/asm_lexer.h"

#include <cctype>
#include <fmt/format.h>
#include <limits>

namespace npu::isa::lex {

void Ctx::fail(int col, const std::string& msg) const {
  throw IsaError(fmt::format("{}:{}:{}: {}", origin, line, col, msg));
}

static bool is_space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f'; }
bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; }

std::vector<Token> tokenize(std::string_view line, const Ctx& ctx) {
  std::vector<Token> out;
  std::size_t i = 0, n = line.size();
  while (i < n) {
    while (i < n && is_space(line[i])) ++i;
    if (i >= n || line[i] == '#' || line[i] == ';') break;
    std::size_t start = i;
    bool quoted = false;
    while (i < n) {
      char c = line[i];
      if (quoted) {
        if (c == '\\' && i + 1 < n) i += 2;
        else {
          if (c == '"') quoted = false;
          ++i;
        }
        continue;
      }
      if (is_space(c) || c == '#' || c == ';') break;
      if (c == '"') quoted = true;
      ++i;
    }
    if (quoted) ctx.fail(static_cast<int>(start) + 1, "unterminated string");
    out.push_back({std::string(line.substr(start, i - start)), static_cast<int>(start) + 1});
  }
  return out;
}

std::string unquote(const std::string& s, int col, const Ctx& ctx) {
  if (s.empty() || s[0] != '"') return s;
  std::string out;
  std::size_t i = 1;
  for (; i < s.size() && s[i] != '"'; ++i) {
    if (s[i] != '\\') {
      out += s[i];
      continue;
    }
    char e = s[++i];
    if (e == 'x' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else if (e == 'n') out += '\n';
    else if (e == 't') out += '\t';
    else if (e == '"' || e == '\\') out += e;
    else ctx.fail(col + static_cast<int>(i) - 1, fmt::format("unknown escape '\\{}'", e));
  }
  if (i + 1 != s.size()) ctx.fail(col + static_cast<int>(i) + 1, "unexpected text after the closing quote");
  return out;
}

KeyValue split_kv(const Token& t) {
  bool quoted = false;
  for (std::size_t i = 0; i < t.text.size(); ++i) {
    if (quoted && t.text[i] == '\\') {
      ++i;
      continue;
    }
    if (t.text[i] == '"') quoted = !quoted;
    if (t.text[i] == '=' && !quoted)
      return {t.text.substr(0, i), t.text.substr(i + 1), t.col, t.col + static_cast<int>(i) + 1, true};
  }
  return {t.text, "", t.col, t.col + static_cast<int>(t.text.size()), false};
}

namespace {

class ExprParser {
 public:
  ExprParser(std::string_view s, int col, const Ctx& ctx, const std::map<std::string, std::int64_t>& syms)
      : s_(s), col_(col), ctx_(ctx), syms_(syms) {}
  std::int64_t parse() {
    if (s_.empty()) ctx_.fail(col_, "missing value");
    std::int64_t v = term();
    while (p_ < s_.size() && (s_[p_] == '+' || s_[p_] == '-')) {
      char op = s_[p_++];
      std::int64_t t = term();
      if (op == '+' ? __builtin_add_overflow(v, t, &v) : __builtin_sub_overflow(v, t, &v))
        ctx_.fail(col_, fmt::format("'{}' overflows 64 bits", s_));
    }
    if (p_ != s_.size())
      ctx_.fail(col_ + static_cast<int>(p_), fmt::format("unexpected '{}' in value '{}'", s_[p_], s_));
    return v;
  }

 private:
  std::int64_t term() {
    std::int64_t v = factor();
    while (p_ < s_.size() && s_[p_] == '*') {
      ++p_;
      if (__builtin_mul_overflow(v, factor(), &v)) ctx_.fail(col_, fmt::format("'{}' overflows 64 bits", s_));
    }
    return v;
  }
  std::int64_t factor() {
    bool neg = false;
    if (p_ < s_.size() && (s_[p_] == '-' || s_[p_] == '+')) neg = s_[p_++] == '-';
    std::size_t start = p_;
    int col = col_ + static_cast<int>(start);
    if (p_ < s_.size() && is_ident_start(s_[p_])) {
      while (p_ < s_.size() && is_ident_char(s_[p_])) ++p_;
      std::string name(s_.substr(start, p_ - start));
      auto it = syms_.find(name);
      if (it == syms_.end()) ctx_.fail(col, fmt::format("unknown symbol '{}'", name));
      std::int64_t v = it->second;
      if (neg && __builtin_sub_overflow(std::int64_t{0}, v, &v))
        ctx_.fail(col, fmt::format("-{} overflows 64 bits", name));
      return v;
    }
    int base = 10;
    if (s_.substr(p_, 2) == "0x" || s_.substr(p_, 2) == "0X") base = 16, p_ += 2;
    else if (s_.substr(p_, 2) == "0b" || s_.substr(p_, 2) == "0B") base = 2, p_ += 2;
    std::uint64_t v = 0;
    int digits = 0;
    for (; p_ < s_.size(); ++p_) {
      char c = s_[p_];
      if (c == '_' && digits > 0) continue;
      int d = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
              : std::isxdigit(static_cast<unsigned char>(c)) ? (std::tolower(c) - 'a' + 10) : 99;
      if (d >= base) break;
      if (v > (static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()) - d) / base)
        ctx_.fail(col, fmt::format("number '{}' does not fit 64 bits", s_.substr(start)));
      v = v * base + d, ++digits;
    }
    if (digits == 0 || (p_ < s_.size() && is_ident_char(s_[p_]))) {
      std::size_t end = p_;
      while (end < s_.size() && (is_ident_char(s_[end]))) ++end;
      ctx_.fail(col, fmt::format("bad number '{}'", s_.substr(start, std::max(end, start + 1) - start)));
    }
    return neg ? -static_cast<std::int64_t>(v) : static_cast<std::int64_t>(v);
  }
  std::string_view s_;
  std::size_t p_ = 0;
  int col_;
  const Ctx& ctx_;
  const std::map<std::string, std::int64_t>& syms_;
};

}  // namespace

std::int64_t eval_expr(std::string_view s, int col, const Ctx& ctx, const Symbols& syms) {
  return ExprParser(s, col, ctx, syms).parse();
}

}  // namespace npu::isa::lex
