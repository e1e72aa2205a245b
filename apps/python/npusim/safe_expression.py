"""Constraint expressions of sweep specs (`sram_kib * 1024 >= rows * cols * 64`), evaluated
over a restricted syntax tree: arithmetic, comparisons, and/or/not, if-else, a few math
functions and names. No attribute access except dotted config keys, no calls but the listed
functions, no eval(): a spec file cannot run code."""
import ast
import math
import operator

_BINARY = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
           ast.FloorDiv: operator.floordiv, ast.Mod: operator.mod, ast.Pow: operator.pow}
_UNARY = {ast.USub: operator.neg, ast.UAdd: operator.pos, ast.Not: operator.not_}
_COMPARE = {ast.Eq: operator.eq, ast.NotEq: operator.ne, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Gt: operator.gt, ast.GtE: operator.ge, ast.In: lambda a, b: a in b,
            ast.NotIn: lambda a, b: a not in b}
FUNCTIONS = {"min": min, "max": max, "abs": abs, "round": round, "int": int, "float": float,
             "log2": math.log2, "sqrt": math.sqrt, "ceil": math.ceil, "floor": math.floor}
_MAX_EXPONENT = 256  # keeps `2 ** 10**9` from eating the machine


class ExpressionError(ValueError):
    pass


def _dotted_name(node):
    """mac_array.rows -> "mac_array.rows"; None for anything that is not a plain name chain."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        base = _dotted_name(node.value)
        return f"{base}.{node.attr}" if base else None
    return None


class Expression:
    """A parsed expression; names() are the variables it reads, evaluate(values) its value."""

    def __init__(self, text):
        self.text = text
        try:
            self._tree = ast.parse(text.strip(), mode="eval").body
        except SyntaxError as e:
            raise ExpressionError(f"not a valid expression: {e.msg} at column {e.offset}") from None
        self._names = set()
        self._check(self._tree)

    def names(self):
        return set(self._names)

    def _check(self, node):
        if isinstance(node, (ast.Name, ast.Attribute)):
            name = _dotted_name(node)
            if name is None or "__" in name:
                raise ExpressionError("attribute access is only allowed on config keys (e.g. mac_array.rows)")
            self._names.add(name)
        elif isinstance(node, ast.Constant):
            if not isinstance(node.value, (int, float, str, bool)):
                raise ExpressionError(f"constant {node.value!r} is not allowed")
        elif isinstance(node, ast.BinOp) and type(node.op) in _BINARY:
            self._check(node.left), self._check(node.right)
        elif isinstance(node, ast.UnaryOp) and type(node.op) in _UNARY:
            self._check(node.operand)
        elif isinstance(node, ast.BoolOp):
            for v in node.values:
                self._check(v)
        elif isinstance(node, ast.Compare) and all(type(op) in _COMPARE for op in node.ops):
            self._check(node.left)
            for c in node.comparators:
                self._check(c)
        elif isinstance(node, ast.IfExp):
            self._check(node.test), self._check(node.body), self._check(node.orelse)
        elif isinstance(node, (ast.Tuple, ast.List)):
            for e in node.elts:
                self._check(e)
        elif isinstance(node, ast.Call):
            if not isinstance(node.func, ast.Name) or node.func.id not in FUNCTIONS or node.keywords:
                raise ExpressionError(f"only these functions may be called: {', '.join(sorted(FUNCTIONS))}")
            for a in node.args:
                self._check(a)
        else:
            raise ExpressionError(f"'{ast.unparse(node)}' is not allowed in a constraint")

    def evaluate(self, values):
        return self._eval(self._tree, values)

    def _eval(self, node, values):
        if isinstance(node, (ast.Name, ast.Attribute)):
            name = _dotted_name(node)
            if name not in values:
                raise ExpressionError(f"unknown name '{name}'")
            return values[name]
        if isinstance(node, ast.Constant):
            return node.value
        if isinstance(node, ast.BinOp):
            left, right = self._eval(node.left, values), self._eval(node.right, values)
            if isinstance(node.op, ast.Pow) and isinstance(right, (int, float)) and abs(right) > _MAX_EXPONENT:
                raise ExpressionError(f"exponent {right} is too large")
            return _BINARY[type(node.op)](left, right)
        if isinstance(node, ast.UnaryOp):
            return _UNARY[type(node.op)](self._eval(node.operand, values))
        if isinstance(node, ast.BoolOp):
            if isinstance(node.op, ast.And):
                return all(self._eval(v, values) for v in node.values)
            return any(self._eval(v, values) for v in node.values)
        if isinstance(node, ast.Compare):
            left = self._eval(node.left, values)
            for op, comparator in zip(node.ops, node.comparators):
                right = self._eval(comparator, values)
                if not _COMPARE[type(op)](left, right):
                    return False
                left = right
            return True
        if isinstance(node, ast.IfExp):
            return self._eval(node.body if self._eval(node.test, values) else node.orelse, values)
        if isinstance(node, (ast.Tuple, ast.List)):
            return tuple(self._eval(e, values) for e in node.elts)
        if isinstance(node, ast.Call):
            return FUNCTIONS[node.func.id](*(self._eval(a, values) for a in node.args))
        raise ExpressionError(f"'{ast.unparse(node)}' is not allowed")  # _check rejects these first
