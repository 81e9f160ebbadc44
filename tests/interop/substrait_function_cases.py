"""Substrait's own scalar-function test cases, transcribed as Python data.

Source: the `tests/cases/{arithmetic,comparison,boolean,logarithmic,rounding}/*.test`
files of the substrait-io/substrait repository (format `SUBSTRAIT_SCALAR_TEST
v1.0`). Every scalar case of those files is here, in file order, with the group
heading it sits under; the aggregate cases of the same folders (`max`, `min`,
`sum`, `std_dev`, `variance`, `bool_and`, `bool_or`, written over a column of
values) are left out, since an ExtendedExpression of one scalar call cannot
express them.

A case is `Case(source, group, function, args, expected, options)`:

- `args`: literals as (text, type) exactly as the case file writes them, e.g.
  ("-128", "i8"), ("null", "fp64?"), ("7.25", "dec<38,2>"); a trailing `?` is a
  nullable type;
- `expected`: the result as (text, type), or ERROR (`<!ERROR>`: evaluation must
  fail) or UNDEFINED (`<!UNDEFINED>`: any value of the type is allowed);
- `options`: the function options the case sets, e.g. {"overflow": "ERROR"}.

`differs` marks the few cases whose expected answer is a choice (or a slip) of
the case file that Arrow's Substrait consumer does not follow; each marker says
why, and the tests say what they accept instead.
"""

from __future__ import annotations

from dataclasses import dataclass, field

ERROR = "ERROR"
UNDEFINED = "UNDEFINED"

# the extension each case folder's functions are declared in
EXTENSION = {
    "arithmetic": "functions_arithmetic",
    "comparison": "functions_comparison",
    "boolean": "functions_boolean",
    "logarithmic": "functions_logarithmic",
    "rounding": "functions_rounding",
}


@dataclass(frozen=True)
class Differs:
    """Why a case's expected answer is not Arrow's, and what the tests accept."""

    reason: str


LOGB_ORDER = Differs(
    "logb: the case file passes the base first, but the extension defines "
    "logb(x, base) = log_base(x) and Arrow follows that definition; the tests expect "
    "the answer of the defined order (`arrow`)")
SQRT_BIG_INT = Differs(
    "sqrt of an i64 beyond 2**53: Arrow converts the argument to fp64 first and refuses "
    "integers that fp64 cannot hold exactly; the tests accept the case's answer or an "
    "exprscope error")
NAN_OPTION_GIVES_NULL = Differs(
    "the case asks for NAN on a domain error or log of zero yet expects null; Arrow "
    "gives NaN (it has no such option); the tests accept null, NaN, or a refusal of "
    "the option")


@dataclass(frozen=True)
class Case:
    source: str
    group: str
    function: str
    args: list
    expected: tuple | str
    options: dict = field(default_factory=dict)
    differs: Differs | None = None
    arrow: tuple | None = None  # Arrow's answer, where `differs` says the tests expect it

    @property
    def extension(self) -> str:
        return EXTENSION[self.source.split("/")[0]]

    @property
    def id(self) -> str:
        args = ",".join(f"{v}:{t}" for v, t in self.args)
        opts = "".join(f"[{k}={v}]" for k, v in self.options.items())
        return f"{self.function}({args}){opts}"


CASES = [
    # arithmetic/abs.test
    Case('arithmetic/abs', 'basic', 'abs', [('25', 'i8')], ('25', 'i8')),
    Case('arithmetic/abs', 'basic', 'abs', [('-200', 'i16')], ('200', 'i16')),
    Case('arithmetic/abs', 'basic', 'abs', [('30000', 'i32')], ('30000', 'i32')),
    Case('arithmetic/abs', 'basic', 'abs', [('-9223372036854775800', 'i64')], ('9223372036854775800', 'i64')),
    Case('arithmetic/abs', 'basic', 'abs', [('2.55', 'fp32')], ('2.55', 'fp32')),
    Case('arithmetic/abs', 'basic', 'abs', [('-2.0000007152557373046875', 'fp64')], ('2.0000007152557373046875', 'fp64')),
    Case('arithmetic/abs', 'null_input', 'abs', [('null', 'i8?')], ('null', 'i8?')),
    Case('arithmetic/abs', 'overflow', 'abs', [('-128', 'i8')], ERROR, {'overflow': 'ERROR'}),
    Case('arithmetic/abs', 'overflow', 'abs', [('-128', 'i8')], ('127', 'i8'), {'overflow': 'SATURATE'}),
    Case('arithmetic/abs', 'overflow', 'abs', [('-128', 'i8')], UNDEFINED, {'overflow': 'SILENT'}),
    # arithmetic/acos.test
    Case('arithmetic/acos', 'basic', 'acos', [('0.00', 'fp32')], ('1.5707963267948966', 'fp32')),
    Case('arithmetic/acos', 'basic', 'acos', [('1.0', 'fp64')], ('0.0', 'fp64')),
    Case('arithmetic/acos', 'basic', 'acos', [('-0.0000009', 'fp64')], ('1.5707972267948966', 'fp64')),
    Case('arithmetic/acos', 'basic', 'acos', [('null', 'fp64?')], ('null', 'fp64?')),
    # arithmetic/acosh.test
    Case('arithmetic/acosh', 'basic', 'acosh', [('1.0', 'fp64')], ('0.0', 'fp64')),
    Case('arithmetic/acosh', 'basic', 'acosh', [('10.0005', 'fp64')], ('2.9932730967481995', 'fp64')),
    Case('arithmetic/acosh', 'basic', 'acosh', [('null', 'fp64?')], ('null', 'fp64?')),
    Case('arithmetic/acosh', 'On_domain_error', 'acosh', [('0.01', 'fp32')], ERROR, {'on_domain_error': 'ERROR'}),
    Case('arithmetic/acosh', 'On_domain_error', 'acosh', [('0.5', 'fp64')], ('nan', 'fp64'), {'on_domain_error': 'NAN'}),
    Case('arithmetic/acosh', 'On_domain_error', 'acosh', [('0.5', 'fp32')], ('null', 'fp32?'), {'on_domain_error': 'NONE'}),
    # arithmetic/add.test
    Case('arithmetic/add', 'basic', 'add', [('120', 'i8'), ('5', 'i8')], ('125', 'i8')),
    Case('arithmetic/add', 'basic', 'add', [('100', 'i16'), ('100', 'i16')], ('200', 'i16')),
    Case('arithmetic/add', 'basic', 'add', [('30000', 'i32'), ('30000', 'i32')], ('60000', 'i32')),
    Case('arithmetic/add', 'basic', 'add', [('2000000000', 'i64'), ('2000000000', 'i64')], ('4000000000', 'i64')),
    Case('arithmetic/add', 'overflow', 'add', [('120', 'i8'), ('10', 'i8')], ERROR, {'overflow': 'ERROR'}),
    Case('arithmetic/add', 'overflow', 'add', [('30000', 'i16'), ('30000', 'i16')], ERROR, {'overflow': 'ERROR'}),
    Case('arithmetic/add', 'overflow', 'add', [('2000000000', 'i32'), ('2000000000', 'i32')], ERROR, {'overflow': 'ERROR'}),
    Case('arithmetic/add', 'overflow', 'add', [('9223372036854775807', 'i64'), ('1', 'i64')], ERROR, {'overflow': 'ERROR'}),
    Case('arithmetic/add', 'overflow', 'add', [('120', 'i8'), ('10', 'i8')], ('127', 'i8'), {'overflow': 'SATURATE'}),
    Case('arithmetic/add', 'overflow', 'add', [('-120', 'i8'), ('-10', 'i8')], ('-128', 'i8'), {'overflow': 'SATURATE'}),
    Case('arithmetic/add', 'overflow', 'add', [('120', 'i8'), ('10', 'i8')], UNDEFINED, {'overflow': 'SILENT'}),
    Case('arithmetic/add', 'floating_exception', 'add', [('1.5e+308', 'fp64'), ('1.5e+308', 'fp64')], ('inf', 'fp64')),
    Case('arithmetic/add', 'floating_exception', 'add', [('-1.5e+308', 'fp64'), ('-1.5e+308', 'fp64')], ('-inf', 'fp64')),
    Case('arithmetic/add', 'rounding', 'add', [('4.5', 'fp32'), ('2.5000007152557373046875', 'fp32')], ('7.00000095367431640625', 'fp32'), {'rounding': 'TIE_TO_EVEN'}),
    Case('arithmetic/add', 'types', 'add', [('4.5', 'fp64'), ('2.5000007152557373046875', 'fp64')], ('7.0000007152557373046875', 'fp64')),
    # arithmetic/asin.test
    Case('arithmetic/asin', 'basic', 'asin', [('0.0', 'fp32')], ('0.0', 'fp32')),
    Case('arithmetic/asin', 'basic', 'asin', [('1.0', 'fp64')], ('1.5707963267948966', 'fp64')),
    Case('arithmetic/asin', 'basic', 'asin', [('0.009', 'fp64')], ('0.009000121504428887', 'fp64')),
    Case('arithmetic/asin', 'basic', 'asin', [('-0.009', 'fp64')], ('-0.009000121504428887', 'fp64')),
    Case('arithmetic/asin', 'basic', 'asin', [('null', 'fp64?')], ('null', 'fp64?')),
    # arithmetic/asinh.test
    Case('arithmetic/asinh', 'basic', 'asinh', [('0.01', 'fp32')], ('0.009999833340832886', 'fp32')),
    Case('arithmetic/asinh', 'basic', 'asinh', [('1.0', 'fp64')], ('0.881373587019543', 'fp64')),
    Case('arithmetic/asinh', 'basic', 'asinh', [('0.0009', 'fp64')], ('0.0008999998785000443', 'fp64')),
    Case('arithmetic/asinh', 'basic', 'asinh', [('null', 'fp64?')], ('null', 'fp64?')),
    # arithmetic/atan.test
    Case('arithmetic/atan', 'basic', 'atan', [('0.0', 'fp32')], ('0.0', 'fp32')),
    Case('arithmetic/atan', 'basic', 'atan', [('1.0', 'fp64')], ('0.7853981633974483', 'fp64')),
    Case('arithmetic/atan', 'basic', 'atan', [('7.01', 'fp64')], ('1.4290989925795292', 'fp64')),
    Case('arithmetic/atan', 'basic', 'atan', [('-7.01', 'fp64')], ('-1.4290989925795292', 'fp64')),
    Case('arithmetic/atan', 'basic', 'atan', [('null', 'fp64?')], ('null', 'fp64?')),
    # arithmetic/atan2.test
    Case('arithmetic/atan2', 'basic', 'atan2', [('0.0', 'fp32'), ('0.0', 'fp32')], ('0.0', 'fp32')),
    Case('arithmetic/atan2', 'basic', 'atan2', [('1.0', 'fp64'), ('1.0', 'fp64')], ('0.7853981633974483', 'fp64')),
    Case('arithmetic/atan2', 'basic', 'atan2', [('0.009', 'fp64'), ('0.0008', 'fp64')], ('1.482140444927459', 'fp64')),
    Case('arithmetic/atan2', 'basic', 'atan2', [('null', 'fp64?'), ('0.0008', 'fp64')], ('null', 'fp64?')),
    # arithmetic/atanh.test
    Case('arithmetic/atanh', 'basic', 'atanh', [('0.0', 'fp32')], ('0.0', 'fp32')),
    Case('arithmetic/atanh', 'basic', 'atanh', [('1.0', 'fp64')], ('inf', 'fp64')),
    Case('arithmetic/atanh', 'basic', 'atanh', [('0.009', 'fp64')], ('0.009000243011810481', 'fp64')),
    Case('arithmetic/atanh', 'basic', 'atanh', [('-0.009', 'fp64')], ('-0.009000243011810481', 'fp64')),
    Case('arithmetic/atanh', 'basic', 'atanh', [('null', 'fp64?')], ('null', 'fp64?')),
    # arithmetic/bitwise_and.test
    Case('arithmetic/bitwise_and', 'basic', 'bitwise_and', [('0', 'i8'), ('1', 'i8')], ('0', 'i8')),
    Case('arithmetic/bitwise_and', 'basic', 'bitwise_and', [('127', 'i8'), ('127', 'i8')], ('127', 'i8')),
    Case('arithmetic/bitwise_and', 'basic', 'bitwise_and', [('-127', 'i8'), ('-10', 'i8')], ('-128', 'i8')),
    Case('arithmetic/bitwise_and', 'basic', 'bitwise_and', [('31766', 'i16'), ('900', 'i16')], ('4', 'i16')),
    Case('arithmetic/bitwise_and', 'basic', 'bitwise_and', [('-31766', 'i16'), ('900', 'i16')], ('896', 'i16')),
    Case('arithmetic/bitwise_and', 'basic', 'bitwise_and', [('2147483647', 'i32'), ('1234567', 'i32')], ('1234567', 'i32')),
    Case('arithmetic/bitwise_and', 'basic', 'bitwise_and', [('2147483647', 'i32'), ('1234567', 'i32')], ('1234567', 'i32')),
    Case('arithmetic/bitwise_and', 'basic', 'bitwise_and', [('9223372036854775807', 'i64'), ('127', 'i64')], ('127', 'i64')),
    Case('arithmetic/bitwise_and', 'basic', 'bitwise_and', [('-9223372036854775807', 'i64'), ('127', 'i64')], ('1', 'i64')),
    Case('arithmetic/bitwise_and', 'basic', 'bitwise_and', [('null', 'i64?'), ('127', 'i64')], ('null', 'i64?')),
    Case('arithmetic/bitwise_and', 'basic', 'bitwise_and', [('127', 'i64'), ('null', 'i64?')], ('null', 'i64?')),
    # arithmetic/bitwise_not.test
    Case('arithmetic/bitwise_not', 'basic', 'bitwise_not', [('0', 'i8')], ('-1', 'i8')),
    Case('arithmetic/bitwise_not', 'basic', 'bitwise_not', [('1', 'i8')], ('-2', 'i8')),
    Case('arithmetic/bitwise_not', 'basic', 'bitwise_not', [('-127', 'i8')], ('126', 'i8')),
    Case('arithmetic/bitwise_not', 'basic', 'bitwise_not', [('31766', 'i16')], ('-31767', 'i16')),
    Case('arithmetic/bitwise_not', 'basic', 'bitwise_not', [('-31766', 'i16')], ('31765', 'i16')),
    Case('arithmetic/bitwise_not', 'basic', 'bitwise_not', [('2147483647', 'i32')], ('-2147483648', 'i32')),
    Case('arithmetic/bitwise_not', 'basic', 'bitwise_not', [('2147483647', 'i32')], ('-2147483648', 'i32')),
    Case('arithmetic/bitwise_not', 'basic', 'bitwise_not', [('9223372036854775807', 'i64')], ('-9223372036854775808', 'i64')),
    Case('arithmetic/bitwise_not', 'basic', 'bitwise_not', [('-9223372036854775807', 'i64')], ('9223372036854775806', 'i64')),
    Case('arithmetic/bitwise_not', 'basic', 'bitwise_not', [('null', 'i64?')], ('null', 'i64?')),
    # arithmetic/bitwise_or.test
    Case('arithmetic/bitwise_or', 'basic', 'bitwise_or', [('0', 'i8'), ('1', 'i8')], ('1', 'i8')),
    Case('arithmetic/bitwise_or', 'basic', 'bitwise_or', [('127', 'i8'), ('127', 'i8')], ('127', 'i8')),
    Case('arithmetic/bitwise_or', 'basic', 'bitwise_or', [('-127', 'i8'), ('-10', 'i8')], ('-9', 'i8')),
    Case('arithmetic/bitwise_or', 'basic', 'bitwise_or', [('31766', 'i16'), ('900', 'i16')], ('32662', 'i16')),
    Case('arithmetic/bitwise_or', 'basic', 'bitwise_or', [('-31766', 'i16'), ('900', 'i16')], ('-31762', 'i16')),
    Case('arithmetic/bitwise_or', 'basic', 'bitwise_or', [('2147483647', 'i32'), ('123456789', 'i32')], ('2147483647', 'i32')),
    Case('arithmetic/bitwise_or', 'basic', 'bitwise_or', [('9223372036854775807', 'i64'), ('127', 'i64')], ('9223372036854775807', 'i64')),
    Case('arithmetic/bitwise_or', 'basic', 'bitwise_or', [('-9223372036854775807', 'i64'), ('127', 'i64')], ('-9223372036854775681', 'i64')),
    Case('arithmetic/bitwise_or', 'basic', 'bitwise_or', [('null', 'i64?'), ('127', 'i64')], ('null', 'i64?')),
    Case('arithmetic/bitwise_or', 'basic', 'bitwise_or', [('127', 'i64'), ('null', 'i64?')], ('null', 'i64?')),
    # arithmetic/bitwise_xor.test
    Case('arithmetic/bitwise_xor', 'basic', 'bitwise_xor', [('0', 'i8'), ('1', 'i8')], ('1', 'i8')),
    Case('arithmetic/bitwise_xor', 'basic', 'bitwise_xor', [('127', 'i8'), ('127', 'i8')], ('0', 'i8')),
    Case('arithmetic/bitwise_xor', 'basic', 'bitwise_xor', [('-127', 'i8'), ('-10', 'i8')], ('119', 'i8')),
    Case('arithmetic/bitwise_xor', 'basic', 'bitwise_xor', [('31766', 'i16'), ('900', 'i16')], ('32658', 'i16')),
    Case('arithmetic/bitwise_xor', 'basic', 'bitwise_xor', [('-31766', 'i16'), ('900', 'i16')], ('-32658', 'i16')),
    Case('arithmetic/bitwise_xor', 'basic', 'bitwise_xor', [('2147483647', 'i32'), ('123456789', 'i32')], ('2024026858', 'i32')),
    Case('arithmetic/bitwise_xor', 'basic', 'bitwise_xor', [('2147483647', 'i32'), ('123456789', 'i32')], ('2024026858', 'i32')),
    Case('arithmetic/bitwise_xor', 'basic', 'bitwise_xor', [('9223372036854775807', 'i64'), ('127', 'i64')], ('9223372036854775680', 'i64')),
    Case('arithmetic/bitwise_xor', 'basic', 'bitwise_xor', [('-9223372036854775807', 'i64'), ('127', 'i64')], ('-9223372036854775682', 'i64')),
    Case('arithmetic/bitwise_xor', 'basic', 'bitwise_xor', [('null', 'i64?'), ('127', 'i64')], ('null', 'i64?')),
    Case('arithmetic/bitwise_xor', 'basic', 'bitwise_xor', [('127', 'i64'), ('null', 'i64?')], ('null', 'i64?')),
    # arithmetic/cos.test
    Case('arithmetic/cos', 'basic', 'cos', [('0.00', 'fp32')], ('1.0', 'fp32')),
    Case('arithmetic/cos', 'basic', 'cos', [('1.0', 'fp64')], ('0.5403023058681398', 'fp64')),
    Case('arithmetic/cos', 'basic', 'cos', [('7.0000009', 'fp64')], ('0.7539016630550606', 'fp64')),
    Case('arithmetic/cos', 'basic', 'cos', [('-7.00000095', 'fp64')], ('0.7539016302056953', 'fp64')),
    Case('arithmetic/cos', 'basic', 'cos', [('null', 'fp64?')], ('null', 'fp64?')),
    # arithmetic/cosh.test
    Case('arithmetic/cosh', 'basic', 'cosh', [('0.00', 'fp32')], ('1.0', 'fp32')),
    Case('arithmetic/cosh', 'basic', 'cosh', [('1.0', 'fp64')], ('1.5430806348152437', 'fp64')),
    Case('arithmetic/cosh', 'basic', 'cosh', [('7.0000009', 'fp64')], ('548.3175286399451', 'fp64')),
    Case('arithmetic/cosh', 'basic', 'cosh', [('-7.00000095', 'fp64')], ('548.3175560557769', 'fp64')),
    Case('arithmetic/cosh', 'basic', 'cosh', [('null', 'fp64?')], ('null', 'fp64?')),
    # arithmetic/divide.test
    Case('arithmetic/divide', 'basic', 'divide', [('25', 'i8'), ('5', 'i8')], ('5', 'i8')),
    Case('arithmetic/divide', 'basic', 'divide', [('200', 'i16'), ('-100', 'i16')], ('-2', 'i16')),
    Case('arithmetic/divide', 'basic', 'divide', [('60000', 'i32'), ('200', 'i32')], ('300', 'i32')),
    Case('arithmetic/divide', 'basic', 'divide', [('4000000000', 'i64'), ('-5000', 'i64')], ('-800000', 'i64')),
    Case('arithmetic/divide', 'division_by_zero', 'divide', [('5', 'i8'), ('0', 'i8')], ('null', 'i8?'), {'on_division_by_zero': 'NAN'}),
    Case('arithmetic/divide', 'division_by_zero', 'divide', [('5', 'i8'), ('0', 'i8')], ERROR, {'on_division_by_zero': 'ERROR'}),
    Case('arithmetic/divide', 'overflow', 'divide', [('-9223372036854775808', 'i64'), ('-1', 'i64')], ERROR, {'overflow': 'ERROR'}),
    Case('arithmetic/divide', 'overflow', 'divide', [('-128', 'i8'), ('-1', 'i8')], ('127', 'i8'), {'overflow': 'SATURATE'}),
    Case('arithmetic/divide', 'floating_exception', 'divide', [('1.5e+208', 'fp64'), ('1.5e-200', 'fp64')], ('inf', 'fp64')),
    Case('arithmetic/divide', 'floating_exception', 'divide', [('1.5e+200', 'fp64'), ('-1.5e-208', 'fp64')], ('-inf', 'fp64')),
    # arithmetic/exp.test
    Case('arithmetic/exp', 'basic', 'exp', [('100', 'i64')], ('2.6881171418161356e+43', 'fp64')),
    Case('arithmetic/exp', 'basic', 'exp', [('0.25', 'fp32')], ('1.2840254166877414', 'fp32')),
    Case('arithmetic/exp', 'basic', 'exp', [('0.693', 'fp64')], ('1.9997056605411638', 'fp64')),
    Case('arithmetic/exp', 'basic', 'exp', [('2.0000007152557373046875', 'fp64')], ('7.3890613839973085', 'fp64')),
    Case('arithmetic/exp', 'basic', 'exp', [('0.0', 'fp64')], ('1.0', 'fp64')),
    Case('arithmetic/exp', 'basic', 'exp', [('null', 'fp64?')], ('null', 'fp64?')),
    Case('arithmetic/exp', 'basic', 'exp', [('1000', 'i64')], ('inf', 'fp64')),
    # arithmetic/factorial.test
    Case('arithmetic/factorial', 'basic', 'factorial', [('0', 'i32')], ('1', 'i32')),
    Case('arithmetic/factorial', 'basic', 'factorial', [('1', 'i32')], ('1', 'i32')),
    Case('arithmetic/factorial', 'basic', 'factorial', [('20', 'i64')], ('2432902008176640000', 'i64')),
    Case('arithmetic/factorial', 'basic', 'factorial', [('null', 'i32?')], ('null', 'i32?')),
    Case('arithmetic/factorial', 'overflow', 'factorial', [('1000000', 'i32')], ERROR, {'overflow': 'ERROR'}),
    # arithmetic/modulus.test
    Case('arithmetic/modulus', 'basic', 'modulus', [('9', 'i8'), ('3', 'i8')], ('0', 'i8')),
    Case('arithmetic/modulus', 'basic', 'modulus', [('10', 'i8'), ('-3', 'i8')], ('1', 'i8')),
    Case('arithmetic/modulus', 'basic', 'modulus', [('32767', 'i16'), ('1000', 'i16')], ('767', 'i16')),
    Case('arithmetic/modulus', 'basic', 'modulus', [('-2147483647', 'i32'), ('300000000', 'i32')], ('-47483647', 'i32')),
    Case('arithmetic/modulus', 'basic', 'modulus', [('-9223372036854775800', 'i64'), ('-80000000000000', 'i64')], ('-12036854775800', 'i64')),
    Case('arithmetic/modulus', 'basic', 'modulus', [('5', 'i8'), ('null', 'i8?')], ('null', 'i8?')),
    Case('arithmetic/modulus', 'basic', 'modulus', [('null', 'i64?'), ('1', 'i64')], ('null', 'i64?')),
    Case('arithmetic/modulus', 'basic', 'modulus', [('null', 'i64?'), ('null', 'i64?')], ('null', 'i64?')),
    Case('arithmetic/modulus', 'on_domain_error', 'modulus', [('5', 'i8'), ('0', 'i8')], ('null', 'i8?'), {'on_domain_error': 'NULL'}),
    Case('arithmetic/modulus', 'on_domain_error', 'modulus', [('5', 'i8'), ('0', 'i8')], ERROR, {'on_domain_error': 'ERROR'}),
    Case('arithmetic/modulus', 'division_type', 'modulus', [('8', 'i8'), ('-3', 'i8')], ('2', 'i8'), {'division_type': 'TRUNCATE'}),
    Case('arithmetic/modulus', 'division_type', 'modulus', [('8', 'i8'), ('-3', 'i8')], ('-1', 'i8'), {'division_type': 'FLOOR'}),
    # arithmetic/multiply.test
    Case('arithmetic/multiply', 'basic', 'multiply', [('25', 'i8'), ('5', 'i8')], ('125', 'i8')),
    Case('arithmetic/multiply', 'basic', 'multiply', [('2', 'i16'), ('-100', 'i16')], ('-200', 'i16')),
    Case('arithmetic/multiply', 'basic', 'multiply', [('300', 'i32'), ('200', 'i32')], ('60000', 'i32')),
    Case('arithmetic/multiply', 'basic', 'multiply', [('80000', 'i64'), ('-5000', 'i64')], ('-400000000', 'i64')),
    Case('arithmetic/multiply', 'overflow', 'multiply', [('13', 'i8'), ('10', 'i8')], ERROR, {'overflow': 'ERROR'}),
    Case('arithmetic/multiply', 'overflow', 'multiply', [('11', 'i16'), ('3000', 'i16')], ERROR, {'overflow': 'ERROR'}),
    Case('arithmetic/multiply', 'overflow', 'multiply', [('3', 'i32'), ('1000000000', 'i32')], ERROR, {'overflow': 'ERROR'}),
    Case('arithmetic/multiply', 'overflow', 'multiply', [('1000000000000000000', 'i64'), ('10', 'i64')], ERROR, {'overflow': 'ERROR'}),
    Case('arithmetic/multiply', 'overflow', 'multiply', [('13', 'i8'), ('10', 'i8')], ('127', 'i8'), {'overflow': 'SATURATE'}),
    Case('arithmetic/multiply', 'overflow', 'multiply', [('-13', 'i8'), ('-10', 'i8')], ('-128', 'i8'), {'overflow': 'SATURATE'}),
    Case('arithmetic/multiply', 'overflow', 'multiply', [('13', 'i8'), ('10', 'i8')], UNDEFINED, {'overflow': 'SILENT'}),
    Case('arithmetic/multiply', 'floating_exception', 'multiply', [('1.5e+100', 'fp64'), ('1.5e+208', 'fp64')], ('inf', 'fp64')),
    Case('arithmetic/multiply', 'floating_exception', 'multiply', [('1.5e+100', 'fp64'), ('-1.5e+208', 'fp64')], ('-inf', 'fp64')),
    Case('arithmetic/multiply', 'types', 'multiply', [('4.5', 'fp64'), ('2.5000007152557373046875', 'fp64')], ('11.250003218650818', 'fp64')),
    # arithmetic/negate.test
    Case('arithmetic/negate', 'basic', 'negate', [('25', 'i8')], ('-25', 'i8')),
    Case('arithmetic/negate', 'basic', 'negate', [('-200', 'i16')], ('200', 'i16')),
    Case('arithmetic/negate', 'basic', 'negate', [('30000', 'i32')], ('-30000', 'i32')),
    Case('arithmetic/negate', 'basic', 'negate', [('9223372036854775800', 'i64')], ('-9223372036854775800', 'i64')),
    Case('arithmetic/negate', 'basic', 'negate', [('2.50', 'fp32')], ('-2.50', 'fp32')),
    Case('arithmetic/negate', 'basic', 'negate', [('2.000002861022949', 'fp64')], ('-2.000002861022949', 'fp64')),
    Case('arithmetic/negate', 'basic', 'negate', [('inf', 'fp64')], ('-inf', 'fp64')),
    Case('arithmetic/negate', 'null_input', 'negate', [('null', 'i8?')], ('null', 'i8?')),
    Case('arithmetic/negate', 'overflow', 'negate', [('-128', 'i8')], ERROR, {'overflow': 'ERROR'}),
    Case('arithmetic/negate', 'overflow', 'negate', [('-128', 'i8')], ('127', 'i8'), {'overflow': 'SATURATE'}),
    Case('arithmetic/negate', 'overflow', 'negate', [('-128', 'i8')], UNDEFINED, {'overflow': 'SILENT'}),
    # arithmetic/power.test
    Case('arithmetic/power', 'basic', 'power', [('8', 'i64'), ('2', 'i64')], ('64', 'i64')),
    Case('arithmetic/power', 'basic', 'power', [('1.0', 'fp32'), ('-1.0', 'fp32')], ('1.0', 'fp32')),
    Case('arithmetic/power', 'basic', 'power', [('2.0', 'fp64'), ('-2.0', 'fp64')], ('0.25', 'fp64')),
    Case('arithmetic/power', 'basic', 'power', [('13', 'i64'), ('10', 'i64')], ('137858491849', 'i64')),
    Case('arithmetic/power', 'floating_exception', 'power', [('1.5e+100', 'fp64'), ('1.5e+208', 'fp64')], ('inf', 'fp64')),
    # arithmetic/shift_left.test
    Case('arithmetic/shift_left', 'basic', 'shift_left', [('2', 'i32'), ('1', 'i32')], ('4', 'i32')),
    Case('arithmetic/shift_left', 'basic', 'shift_left', [('511', 'i32'), ('8', 'i32')], ('130816', 'i32')),
    Case('arithmetic/shift_left', 'basic', 'shift_left', [('301989888', 'i64'), ('3', 'i32')], ('2415919104', 'i64')),
    Case('arithmetic/shift_left', 'basic', 'shift_left', [('301989888', 'i64'), ('8', 'i32')], ('19791209299968', 'i64')),
    Case('arithmetic/shift_left', 'basic', 'shift_left', [('-3', 'i32'), ('1', 'i32')], ('-6', 'i32')),
    Case('arithmetic/shift_left', 'basic', 'shift_left', [('-3', 'i32'), ('2', 'i32')], ('-12', 'i32')),
    Case('arithmetic/shift_left', 'basic', 'shift_left', [('-3', 'i64'), ('1', 'i32')], ('-6', 'i64')),
    Case('arithmetic/shift_left', 'basic', 'shift_left', [('-3', 'i64'), ('2', 'i32')], ('-12', 'i64')),
    Case('arithmetic/shift_left', 'basic', 'shift_left', [('null', 'i64?'), ('2', 'i32')], ('null', 'i64?')),
    Case('arithmetic/shift_left', 'basic', 'shift_left', [('127', 'i64'), ('null', 'i32?')], ('null', 'i64?')),
    # arithmetic/shift_right.test
    Case('arithmetic/shift_right', 'basic', 'shift_right', [('2', 'i32'), ('1', 'i32')], ('1', 'i32')),
    Case('arithmetic/shift_right', 'basic', 'shift_right', [('1024', 'i32'), ('8', 'i32')], ('4', 'i32')),
    Case('arithmetic/shift_right', 'basic', 'shift_right', [('301989888', 'i64'), ('3', 'i32')], ('37748736', 'i64')),
    Case('arithmetic/shift_right', 'basic', 'shift_right', [('301989888', 'i64'), ('16', 'i32')], ('4608', 'i64')),
    Case('arithmetic/shift_right', 'basic', 'shift_right', [('-3', 'i32'), ('1', 'i32')], ('-2', 'i32')),
    Case('arithmetic/shift_right', 'basic', 'shift_right', [('-3', 'i32'), ('2', 'i32')], ('-1', 'i32')),
    Case('arithmetic/shift_right', 'basic', 'shift_right', [('-3', 'i64'), ('1', 'i32')], ('-2', 'i64')),
    Case('arithmetic/shift_right', 'basic', 'shift_right', [('-3', 'i64'), ('2', 'i32')], ('-1', 'i64')),
    Case('arithmetic/shift_right', 'basic', 'shift_right', [('null', 'i64?'), ('2', 'i32')], ('null', 'i64?')),
    Case('arithmetic/shift_right', 'basic', 'shift_right', [('127', 'i64'), ('null', 'i32?')], ('null', 'i64?')),
    # arithmetic/shift_right_unsigned.test
    Case('arithmetic/shift_right_unsigned', 'basic', 'shift_right_unsigned', [('2', 'i32'), ('1', 'i32')], ('1', 'i32')),
    Case('arithmetic/shift_right_unsigned', 'basic', 'shift_right_unsigned', [('1024', 'i32'), ('8', 'i32')], ('4', 'i32')),
    Case('arithmetic/shift_right_unsigned', 'basic', 'shift_right_unsigned', [('301989888', 'i64'), ('3', 'i32')], ('37748736', 'i64')),
    Case('arithmetic/shift_right_unsigned', 'basic', 'shift_right_unsigned', [('301989888', 'i64'), ('16', 'i32')], ('4608', 'i64')),
    Case('arithmetic/shift_right_unsigned', 'basic', 'shift_right_unsigned', [('-3', 'i32'), ('1', 'i32')], ('2147483646', 'i32')),
    Case('arithmetic/shift_right_unsigned', 'basic', 'shift_right_unsigned', [('-3', 'i32'), ('2', 'i32')], ('1073741823', 'i32')),
    Case('arithmetic/shift_right_unsigned', 'basic', 'shift_right_unsigned', [('-3', 'i64'), ('1', 'i32')], ('9223372036854775806', 'i64')),
    Case('arithmetic/shift_right_unsigned', 'basic', 'shift_right_unsigned', [('-3', 'i64'), ('2', 'i32')], ('4611686018427387903', 'i64')),
    Case('arithmetic/shift_right_unsigned', 'basic', 'shift_right_unsigned', [('null', 'i64?'), ('2', 'i32')], ('null', 'i64?')),
    Case('arithmetic/shift_right_unsigned', 'basic', 'shift_right_unsigned', [('127', 'i64'), ('null', 'i32?')], ('null', 'i64?')),
    # arithmetic/sin.test
    Case('arithmetic/sin', 'basic', 'sin', [('0.0', 'fp32')], ('0.0', 'fp32')),
    Case('arithmetic/sin', 'basic', 'sin', [('1.0', 'fp64')], ('0.8414709848078965', 'fp64')),
    Case('arithmetic/sin', 'basic', 'sin', [('7.0000009', 'fp64')], ('0.6569872772305518', 'fp64')),
    Case('arithmetic/sin', 'basic', 'sin', [('-7.0000009', 'fp64')], ('-0.6569872772305518', 'fp64')),
    Case('arithmetic/sin', 'basic', 'sin', [('null', 'fp64?')], ('null', 'fp64?')),
    # arithmetic/sinh.test
    Case('arithmetic/sinh', 'basic', 'sinh', [('0.0', 'fp32')], ('0.0', 'fp32')),
    Case('arithmetic/sinh', 'basic', 'sinh', [('1.0', 'fp64')], ('1.1752011936438014', 'fp64')),
    Case('arithmetic/sinh', 'basic', 'sinh', [('7.0000009', 'fp64')], ('548.3166167588001', 'fp64')),
    Case('arithmetic/sinh', 'basic', 'sinh', [('-7.0000009', 'fp64')], ('-548.3166167588001', 'fp64')),
    Case('arithmetic/sinh', 'basic', 'sinh', [('null', 'fp64?')], ('null', 'fp64?')),
    # arithmetic/sqrt.test
    Case('arithmetic/sqrt', 'basic', 'sqrt', [('25', 'i64')], ('5', 'fp64')),
    Case('arithmetic/sqrt', 'basic', 'sqrt', [('0', 'i64')], ('0', 'fp64')),
    Case('arithmetic/sqrt', 'basic', 'sqrt', [('-1', 'i64')], ('null', 'fp64?'), {'on_domain_error': 'NAN'}, differs=NAN_OPTION_GIVES_NULL),
    Case('arithmetic/sqrt', 'basic', 'sqrt', [('-9223372036854775800', 'i64')], ('null', 'fp64?'), {'on_domain_error': 'NAN'}, differs=SQRT_BIG_INT),
    Case('arithmetic/sqrt', 'basic', 'sqrt', [('9223372036854775800', 'i64')], ('3037000499.97605', 'fp64'), differs=SQRT_BIG_INT),
    Case('arithmetic/sqrt', 'basic', 'sqrt', [('null', 'i64?')], ('null', 'fp64?')),
    Case('arithmetic/sqrt', 'basic', 'sqrt', [('6.25', 'fp32')], ('2.5', 'fp32')),
    Case('arithmetic/sqrt', 'basic', 'sqrt', [('2.0000007152557373046875', 'fp64')], ('1.4142138152541635', 'fp64')),
    # arithmetic/subtract.test
    Case('arithmetic/subtract', 'basic', 'subtract', [('120', 'i8'), ('5', 'i8')], ('115', 'i8')),
    Case('arithmetic/subtract', 'basic', 'subtract', [('-100', 'i16'), ('100', 'i16')], ('-200', 'i16')),
    Case('arithmetic/subtract', 'basic', 'subtract', [('-30000', 'i32'), ('30000', 'i32')], ('-60000', 'i32')),
    Case('arithmetic/subtract', 'basic', 'subtract', [('-2000000000', 'i64'), ('2000000000', 'i64')], ('-4000000000', 'i64')),
    Case('arithmetic/subtract', 'overflow', 'subtract', [('-120', 'i8'), ('10', 'i8')], ERROR, {'overflow': 'ERROR'}),
    Case('arithmetic/subtract', 'overflow', 'subtract', [('-30000', 'i16'), ('30000', 'i16')], ERROR, {'overflow': 'ERROR'}),
    Case('arithmetic/subtract', 'overflow', 'subtract', [('-2000000000', 'i32'), ('2000000000', 'i32')], ERROR, {'overflow': 'ERROR'}),
    Case('arithmetic/subtract', 'overflow', 'subtract', [('-9223372036854775808', 'i64'), ('1', 'i64')], ERROR, {'overflow': 'ERROR'}),
    Case('arithmetic/subtract', 'overflow', 'subtract', [('-120', 'i8'), ('10', 'i8')], ('-128', 'i8'), {'overflow': 'SATURATE'}),
    Case('arithmetic/subtract', 'overflow', 'subtract', [('120', 'i8'), ('-10', 'i8')], ('127', 'i8'), {'overflow': 'SATURATE'}),
    Case('arithmetic/subtract', 'overflow', 'subtract', [('-120', 'i8'), ('10', 'i8')], UNDEFINED, {'overflow': 'SILENT'}),
    Case('arithmetic/subtract', 'floating_exception', 'subtract', [('-1.5e+308', 'fp64'), ('1.5e+308', 'fp64')], ('-inf', 'fp64')),
    Case('arithmetic/subtract', 'floating_exception', 'subtract', [('1.5e+308', 'fp64'), ('-1.5e+308', 'fp64')], ('inf', 'fp64')),
    # arithmetic/tan.test
    Case('arithmetic/tan', 'basic', 'tan', [('0.0', 'fp32')], ('0.0', 'fp32')),
    Case('arithmetic/tan', 'basic', 'tan', [('0.5', 'fp64')], ('0.5463024898437905', 'fp64')),
    Case('arithmetic/tan', 'basic', 'tan', [('7.01', 'fp64')], ('0.8891974677731088', 'fp64')),
    Case('arithmetic/tan', 'basic', 'tan', [('-7.01', 'fp64')], ('-0.8891974677731088', 'fp64')),
    Case('arithmetic/tan', 'basic', 'tan', [('null', 'fp64?')], ('null', 'fp64?')),
    # arithmetic/tanh.test
    Case('arithmetic/tanh', 'basic', 'tanh', [('0.0', 'fp32')], ('0.0', 'fp32')),
    Case('arithmetic/tanh', 'basic', 'tanh', [('1.0', 'fp64')], ('0.7615941559557649', 'fp64')),
    Case('arithmetic/tanh', 'basic', 'tanh', [('7.0000009', 'fp64')], ('0.9999983369469382', 'fp64')),
    Case('arithmetic/tanh', 'basic', 'tanh', [('-7.0000009', 'fp64')], ('-0.9999983369469382', 'fp64')),
    Case('arithmetic/tanh', 'basic', 'tanh', [('null', 'fp64?')], ('null', 'fp64?')),
    # boolean/and.test
    Case('boolean/and', 'basic', 'and', [('true', 'bool'), ('true', 'bool')], ('true', 'bool')),
    Case('boolean/and', 'basic', 'and', [('true', 'bool'), ('false', 'bool')], ('false', 'bool')),
    Case('boolean/and', 'basic', 'and', [('false', 'bool'), ('false', 'bool')], ('false', 'bool')),
    Case('boolean/and', 'null_input', 'and', [('true', 'bool'), ('null', 'bool?')], ('null', 'bool?')),
    Case('boolean/and', 'null_input', 'and', [('null', 'bool?'), ('true', 'bool')], ('null', 'bool?')),
    Case('boolean/and', 'null_input', 'and', [('false', 'bool'), ('null', 'bool?')], ('false', 'bool?')),
    Case('boolean/and', 'null_input', 'and', [('null', 'bool?'), ('false', 'bool')], ('false', 'bool?')),
    Case('boolean/and', 'null_input', 'and', [('null', 'bool?'), ('null', 'bool?')], ('null', 'bool?')),
    # boolean/and_not.test
    Case('boolean/and_not', 'basic', 'and_not', [('true', 'bool'), ('false', 'bool')], ('true', 'bool')),
    Case('boolean/and_not', 'basic', 'and_not', [('true', 'bool'), ('true', 'bool')], ('false', 'bool')),
    Case('boolean/and_not', 'basic', 'and_not', [('false', 'bool'), ('true', 'bool')], ('false', 'bool')),
    Case('boolean/and_not', 'basic', 'and_not', [('false', 'bool'), ('false', 'bool')], ('false', 'bool')),
    Case('boolean/and_not', 'null_input', 'and_not', [('true', 'bool'), ('null', 'bool?')], ('null', 'bool?')),
    Case('boolean/and_not', 'null_input', 'and_not', [('null', 'bool?'), ('false', 'bool')], ('null', 'bool?')),
    Case('boolean/and_not', 'null_input', 'and_not', [('false', 'bool'), ('null', 'bool?')], ('false', 'bool?')),
    Case('boolean/and_not', 'null_input', 'and_not', [('null', 'bool?'), ('true', 'bool')], ('false', 'bool?')),
    Case('boolean/and_not', 'null_input', 'and_not', [('null', 'bool?'), ('null', 'bool?')], ('null', 'bool?')),
    # boolean/not.test
    Case('boolean/not', 'basic', 'not', [('true', 'bool')], ('false', 'bool')),
    Case('boolean/not', 'basic', 'not', [('false', 'bool')], ('true', 'bool')),
    Case('boolean/not', 'null_input', 'not', [('null', 'bool?')], ('null', 'bool?')),
    # boolean/or.test
    Case('boolean/or', 'basic', 'or', [('true', 'bool'), ('true', 'bool')], ('true', 'bool')),
    Case('boolean/or', 'basic', 'or', [('true', 'bool'), ('false', 'bool')], ('true', 'bool')),
    Case('boolean/or', 'basic', 'or', [('false', 'bool'), ('false', 'bool')], ('false', 'bool')),
    Case('boolean/or', 'null_input', 'or', [('true', 'bool'), ('null', 'bool?')], ('true', 'bool?')),
    Case('boolean/or', 'null_input', 'or', [('null', 'bool?'), ('true', 'bool')], ('true', 'bool?')),
    Case('boolean/or', 'null_input', 'or', [('false', 'bool'), ('null', 'bool?')], ('null', 'bool?')),
    Case('boolean/or', 'null_input', 'or', [('null', 'bool?'), ('false', 'bool')], ('null', 'bool?')),
    Case('boolean/or', 'null_input', 'or', [('null', 'bool?'), ('null', 'bool?')], ('null', 'bool?')),
    # boolean/xor.test
    Case('boolean/xor', 'basic', 'xor', [('true', 'bool'), ('false', 'bool')], ('true', 'bool')),
    Case('boolean/xor', 'basic', 'xor', [('true', 'bool'), ('true', 'bool')], ('false', 'bool')),
    Case('boolean/xor', 'basic', 'xor', [('false', 'bool'), ('false', 'bool')], ('false', 'bool')),
    Case('boolean/xor', 'basic', 'xor', [('false', 'bool'), ('true', 'bool')], ('true', 'bool')),
    Case('boolean/xor', 'null_input', 'xor', [('true', 'bool'), ('null', 'bool?')], ('null', 'bool?')),
    Case('boolean/xor', 'null_input', 'xor', [('null', 'bool?'), ('true', 'bool')], ('null', 'bool?')),
    Case('boolean/xor', 'null_input', 'xor', [('false', 'bool'), ('null', 'bool?')], ('null', 'bool?')),
    Case('boolean/xor', 'null_input', 'xor', [('null', 'bool?'), ('false', 'bool')], ('null', 'bool?')),
    # comparison/between.test
    Case('comparison/between', 'basic', 'between', [('5', 'i8'), ('0', 'i8'), ('127', 'i8')], ('true', 'bool')),
    Case('comparison/between', 'basic', 'between', [('20000', 'i16'), ('1', 'i16'), ('30000', 'i16')], ('true', 'bool')),
    Case('comparison/between', 'basic', 'between', [('1030000000', 'i32'), ('1000000000', 'i32'), ('2000000000', 'i32')], ('true', 'bool')),
    Case('comparison/between', 'basic', 'between', [('10300000000900', 'i64'), ('1000000000', 'i64'), ('9223372036854775807', 'i64')], ('true', 'bool')),
    Case('comparison/between', 'basic', 'between', [('2', 'i8'), ('1', 'i8'), ('-120', 'i8')], ('false', 'bool')),
    Case('comparison/between', 'basic', 'between', [('2', 'i8'), ('2', 'i8'), ('3', 'i8')], ('true', 'bool')),
    Case('comparison/between', 'basic', 'between', [('2', 'i8'), ('1', 'i8'), ('2', 'i8')], ('true', 'bool')),
    Case('comparison/between', 'basic', 'between', [('-10000', 'i16'), ('-20000', 'i16'), ('-30000', 'i16')], ('false', 'bool')),
    Case('comparison/between', 'basic', 'between', [('-100000000', 'i32'), ('-1000000000', 'i32'), ('-2000000000', 'i32')], ('false', 'bool')),
    Case('comparison/between', 'basic', 'between', [('92233720368547758', 'i64'), ('1', 'i64'), ('-9223372036854775807', 'i64')], ('false', 'bool')),
    Case('comparison/between', 'basic', 'between', [('14.01', 'fp32'), ('20.90', 'fp32'), ('88.00', 'fp32')], ('false', 'bool')),
    Case('comparison/between', 'basic', 'between', [('14.011', 'fp64'), ('0.00', 'fp64'), ('inf', 'fp64')], ('true', 'bool')),
    Case('comparison/between', 'basic', 'between', [('inf', 'fp64'), ('0.00', 'fp64'), ('100.09', 'fp64')], ('false', 'bool')),
    Case('comparison/between', 'basic', 'between', [('-100.0011', 'fp64'), ('-inf', 'fp64'), ('0.00', 'fp64')], ('true', 'bool')),
    Case('comparison/between', 'null_input', 'between', [('null', 'i8?'), ('1', 'i8'), ('10', 'i8')], ('null', 'bool?')),
    Case('comparison/between', 'null_input', 'between', [('1', 'i64'), ('null', 'i64?'), ('10', 'i64')], ('null', 'bool?')),
    Case('comparison/between', 'null_input', 'between', [('1', 'i64'), ('1', 'i64'), ('null', 'i64?')], ('null', 'bool?')),
    # comparison/coalesce.test
    Case('comparison/coalesce', 'basic', 'coalesce', [('1', 'i8'), ('2', 'i8')], ('1', 'i8')),
    Case('comparison/coalesce', 'basic', 'coalesce', [('null', 'i8?'), ('2', 'i8')], ('2', 'i8?')),
    Case('comparison/coalesce', 'basic', 'coalesce', [('null', 'i16?'), ('null', 'i16?')], ('null', 'i16?')),
    Case('comparison/coalesce', 'basic', 'coalesce', [('2000000', 'i32'), ('null', 'i32?')], ('2000000', 'i32?')),
    Case('comparison/coalesce', 'basic', 'coalesce', [('null', 'i64?'), ('9223372036854775807', 'i64')], ('9223372036854775807', 'i64?')),
    Case('comparison/coalesce', 'basic', 'coalesce', [('null', 'fp32?'), ('-65.500000', 'fp32')], ('-65.500000', 'fp32?')),
    Case('comparison/coalesce', 'basic', 'coalesce', [('inf', 'fp64'), ('-inf', 'fp64')], ('inf', 'fp64')),
    Case('comparison/coalesce', 'basic', 'coalesce', [('7', 'dec<38,0>'), ('4', 'dec<38,0>')], ('7', 'dec<38,0>')),
    Case('comparison/coalesce', 'basic', 'coalesce', [('null', 'dec?<38,0>'), ('2', 'dec<38,0>')], ('2', 'dec?<38,0>')),
    Case('comparison/coalesce', 'basic', 'coalesce', [('null', 'dec?<38,0>'), ('null', 'dec?<38,0>')], ('null', 'dec?<38,0>')),
    Case('comparison/coalesce', 'basic', 'coalesce', [('2000000', 'dec<38,0>'), ('null', 'dec?<38,0>')], ('2000000', 'dec?<38,0>')),
    Case('comparison/coalesce', 'basic', 'coalesce', [('null', 'dec?<38,0>'), ('2000000', 'dec<38,0>')], ('2000000', 'dec?<38,0>')),
    # comparison/equal.test
    Case('comparison/equal', 'basic', 'equal', [('1', 'i8'), ('1', 'i8')], ('true', 'bool')),
    Case('comparison/equal', 'basic', 'equal', [('300', 'i16'), ('200', 'i16')], ('false', 'bool')),
    Case('comparison/equal', 'basic', 'equal', [('-2147483648', 'i32'), ('-2147483648', 'i32')], ('true', 'bool')),
    Case('comparison/equal', 'basic', 'equal', [('9223372036854775807', 'i64'), ('9223372036854775804', 'i64')], ('false', 'bool')),
    Case('comparison/equal', 'basic', 'equal', [('inf', 'fp64'), ('inf', 'fp64')], ('true', 'bool')),
    Case('comparison/equal', 'basic', 'equal', [('inf', 'fp64'), ('1.5e+308', 'fp64')], ('false', 'bool')),
    Case('comparison/equal', 'basic', 'equal', [('10', 'dec<38,0>'), ('10', 'dec<38,0>')], ('true', 'bool')),
    Case('comparison/equal', 'basic', 'equal', [('inf', 'fp64'), ('-inf', 'fp64')], ('false', 'bool')),
    Case('comparison/equal', 'null_input', 'equal', [('null', 'i16?'), ('1', 'i16')], ('null', 'bool?')),
    Case('comparison/equal', 'null_input', 'equal', [('null', 'i16?'), ('null', 'i16?')], ('null', 'bool?')),
    Case('comparison/equal', 'null_input', 'equal', [('7', 'dec<38,0>'), ('null', 'dec?<38,0>')], ('null', 'bool?')),
    Case('comparison/equal', 'null_input', 'equal', [('null', 'dec?<38,0>'), ('null', 'dec?<38,0>')], ('null', 'bool?')),
    # comparison/gt.test
    Case('comparison/gt', 'basic', 'gt', [('1', 'i8'), ('2', 'i8')], ('false', 'bool')),
    Case('comparison/gt', 'basic', 'gt', [('200', 'i16'), ('199', 'i16')], ('true', 'bool')),
    Case('comparison/gt', 'basic', 'gt', [('200', 'i16'), ('200', 'i16')], ('false', 'bool')),
    Case('comparison/gt', 'basic', 'gt', [('2000000000', 'i32'), ('1000000000', 'i32')], ('true', 'bool')),
    Case('comparison/gt', 'basic', 'gt', [('-922337203685775808', 'i64'), ('-922337203685775807', 'i64')], ('false', 'bool')),
    Case('comparison/gt', 'basic', 'gt', [('7.25', 'fp32'), ('2.50', 'fp32')], ('true', 'bool')),
    Case('comparison/gt', 'basic', 'gt', [('-922337203685775808', 'dec<38,0>'), ('-922337203685775807', 'dec<38,0>')], ('false', 'bool')),
    Case('comparison/gt', 'basic', 'gt', [('7.25', 'dec<38,2>'), ('2.50', 'dec<38,2>')], ('true', 'bool')),
    Case('comparison/gt', 'basic', 'gt', [('-1.5e+308', 'fp64'), ('-inf', 'fp64')], ('true', 'bool')),
    Case('comparison/gt', 'basic', 'gt', [('inf', 'fp64'), ('1.5e+308', 'fp64')], ('true', 'bool')),
    Case('comparison/gt', 'null_input', 'gt', [('null', 'i16?'), ('100', 'i16')], ('null', 'bool?')),
    Case('comparison/gt', 'null_input', 'gt', [('2', 'i16'), ('null', 'i16?')], ('null', 'bool?')),
    Case('comparison/gt', 'null_input', 'gt', [('null', 'i16?'), ('null', 'i16?')], ('null', 'bool?')),
    Case('comparison/gt', 'null_input', 'gt', [('2', 'dec<38,2>'), ('null', 'dec?<38,2>')], ('null', 'bool?')),
    Case('comparison/gt', 'null_input', 'gt', [('null', 'dec?<38,2>'), ('null', 'dec?<38,2>')], ('null', 'bool?')),
    # comparison/gte.test
    Case('comparison/gte', 'basic', 'gte', [('1', 'i8'), ('2', 'i8')], ('false', 'bool')),
    Case('comparison/gte', 'basic', 'gte', [('2', 'i8'), ('2', 'i8')], ('true', 'bool')),
    Case('comparison/gte', 'basic', 'gte', [('200', 'i16'), ('199', 'i16')], ('true', 'bool')),
    Case('comparison/gte', 'basic', 'gte', [('2000000000', 'i32'), ('1000000000', 'i32')], ('true', 'bool')),
    Case('comparison/gte', 'basic', 'gte', [('-922337203685775808', 'i64'), ('-922337203685775807', 'i64')], ('false', 'bool')),
    Case('comparison/gte', 'basic', 'gte', [('7.25', 'fp32'), ('2.50', 'fp32')], ('true', 'bool')),
    Case('comparison/gte', 'basic', 'gte', [('7.25', 'fp32'), ('7.25', 'fp32')], ('true', 'bool')),
    Case('comparison/gte', 'basic', 'gte', [('7.25', 'dec<38,2>'), ('7.25', 'dec<38,2>')], ('true', 'bool')),
    Case('comparison/gte', 'basic', 'gte', [('7.25', 'dec<38,2>'), ('7.27', 'dec<38,2>')], ('false', 'bool')),
    Case('comparison/gte', 'basic', 'gte', [('inf', 'fp64'), ('1.5e+308', 'fp64')], ('true', 'bool')),
    Case('comparison/gte', 'basic', 'gte', [('inf', 'fp64'), ('inf', 'fp64')], ('true', 'bool')),
    Case('comparison/gte', 'basic', 'gte', [('-inf', 'fp64'), ('-1.5e+308', 'fp64')], ('false', 'bool')),
    Case('comparison/gte', 'null_input', 'gte', [('null', 'dec?<38,2>'), ('7.25', 'dec<38,2>')], ('null', 'bool?')),
    Case('comparison/gte', 'null_input', 'gte', [('null', 'dec?<38,2>'), ('null', 'dec?<38,2>')], ('null', 'bool?')),
    Case('comparison/gte', 'null_input', 'gte', [('null', 'i16?'), ('1', 'i16')], ('null', 'bool?')),
    Case('comparison/gte', 'null_input', 'gte', [('2', 'i16'), ('null', 'i16?')], ('null', 'bool?')),
    Case('comparison/gte', 'null_input', 'gte', [('null', 'i16?'), ('null', 'i16?')], ('null', 'bool?')),
    # comparison/is_false.test
    Case('comparison/is_false', 'basic', 'is_false', [('true', 'bool')], ('false', 'bool')),
    Case('comparison/is_false', 'basic', 'is_false', [('false', 'bool')], ('true', 'bool')),
    Case('comparison/is_false', 'basic', 'is_false', [('null', 'bool?')], ('false', 'bool')),
    # comparison/is_finite.test
    Case('comparison/is_finite', 'basic', 'is_finite', [('0.0', 'fp32')], ('true', 'bool')),
    Case('comparison/is_finite', 'basic', 'is_finite', [('0.55', 'fp32')], ('true', 'bool')),
    Case('comparison/is_finite', 'basic', 'is_finite', [('1000.000000000001', 'fp64')], ('true', 'bool')),
    Case('comparison/is_finite', 'basic', 'is_finite', [('-inf', 'fp64')], ('false', 'bool')),
    Case('comparison/is_finite', 'basic', 'is_finite', [('inf', 'fp64')], ('false', 'bool')),
    Case('comparison/is_finite', 'basic', 'is_finite', [('null', 'fp64?')], ('null', 'bool?')),
    # comparison/is_infinite.test
    Case('comparison/is_infinite', 'basic', 'is_infinite', [('0.0', 'fp32')], ('false', 'bool')),
    Case('comparison/is_infinite', 'basic', 'is_infinite', [('0.55', 'fp32')], ('false', 'bool')),
    Case('comparison/is_infinite', 'basic', 'is_infinite', [('1000.000000000001', 'fp64')], ('false', 'bool')),
    Case('comparison/is_infinite', 'basic', 'is_infinite', [('-inf', 'fp64')], ('true', 'bool')),
    Case('comparison/is_infinite', 'basic', 'is_infinite', [('inf', 'fp64')], ('true', 'bool')),
    Case('comparison/is_infinite', 'basic', 'is_infinite', [('null', 'fp64?')], ('null', 'bool?')),
    # comparison/is_nan.test
    Case('comparison/is_nan', 'basic', 'is_nan', [('0.0', 'fp32')], ('false', 'bool')),
    Case('comparison/is_nan', 'basic', 'is_nan', [('0.55', 'fp32')], ('false', 'bool')),
    Case('comparison/is_nan', 'basic', 'is_nan', [('1000.000000000001', 'fp64')], ('false', 'bool')),
    Case('comparison/is_nan', 'basic', 'is_nan', [('-inf', 'fp64')], ('false', 'bool')),
    Case('comparison/is_nan', 'basic', 'is_nan', [('inf', 'fp64')], ('false', 'bool')),
    Case('comparison/is_nan', 'basic', 'is_nan', [('null', 'fp64?')], ('null', 'bool?')),
    Case('comparison/is_nan', 'basic', 'is_nan', [('nan', 'fp64')], ('true', 'bool')),
    # comparison/is_not_distinct_from.test
    Case('comparison/is_not_distinct_from', 'basic', 'is_not_distinct_from', [('1', 'i16'), ('1', 'i16')], ('true', 'bool')),
    Case('comparison/is_not_distinct_from', 'basic', 'is_not_distinct_from', [('2', 'i16'), ('1', 'i16')], ('false', 'bool')),
    Case('comparison/is_not_distinct_from', 'basic', 'is_not_distinct_from', [('1.75', 'dec<38,2>'), ('1.75', 'dec<38,2>')], ('true', 'bool')),
    Case('comparison/is_not_distinct_from', 'basic', 'is_not_distinct_from', [('1.75', 'dec<38,2>'), ('1.1', 'dec<38,2>')], ('false', 'bool')),
    Case('comparison/is_not_distinct_from', 'null_input', 'is_not_distinct_from', [('null', 'i16?'), ('1', 'i16')], ('false', 'bool')),
    Case('comparison/is_not_distinct_from', 'null_input', 'is_not_distinct_from', [('null', 'i16?'), ('null', 'i16?')], ('true', 'bool')),
    Case('comparison/is_not_distinct_from', 'null_input', 'is_not_distinct_from', [('10', 'dec<38,0>'), ('null', 'dec?<38,0>')], ('false', 'bool')),
    Case('comparison/is_not_distinct_from', 'null_input', 'is_not_distinct_from', [('null', 'dec?<38,0>'), ('null', 'dec?<38,0>')], ('true', 'bool')),
    # comparison/is_not_false.test
    Case('comparison/is_not_false', 'basic', 'is_not_false', [('true', 'bool')], ('true', 'bool')),
    Case('comparison/is_not_false', 'basic', 'is_not_false', [('false', 'bool')], ('false', 'bool')),
    Case('comparison/is_not_false', 'basic', 'is_not_false', [('null', 'bool?')], ('true', 'bool')),
    # comparison/is_not_null.test
    Case('comparison/is_not_null', 'basic', 'is_not_null', [('25', 'i16')], ('true', 'bool')),
    Case('comparison/is_not_null', 'basic', 'is_not_null', [('true', 'bool')], ('true', 'bool')),
    Case('comparison/is_not_null', 'basic', 'is_not_null', [('7.25', 'fp32')], ('true', 'bool')),
    Case('comparison/is_not_null', 'basic', 'is_not_null', [('7.25', 'dec<38,3>')], ('true', 'bool')),
    Case('comparison/is_not_null', 'basic', 'is_not_null', [('null', 'i8?')], ('false', 'bool')),
    Case('comparison/is_not_null', 'basic', 'is_not_null', [('null', 'dec?<38,3>')], ('false', 'bool')),
    # comparison/is_not_true.test
    Case('comparison/is_not_true', 'basic', 'is_not_true', [('true', 'bool')], ('false', 'bool')),
    Case('comparison/is_not_true', 'basic', 'is_not_true', [('false', 'bool')], ('true', 'bool')),
    Case('comparison/is_not_true', 'basic', 'is_not_true', [('null', 'bool?')], ('true', 'bool')),
    # comparison/is_null.test
    Case('comparison/is_null', 'basic', 'is_null', [('25', 'i16')], ('false', 'bool')),
    Case('comparison/is_null', 'basic', 'is_null', [('false', 'bool')], ('false', 'bool')),
    Case('comparison/is_null', 'basic', 'is_null', [('7.823', 'dec<38,3>')], ('false', 'bool')),
    Case('comparison/is_null', 'basic', 'is_null', [('null', 'i16?')], ('true', 'bool')),
    Case('comparison/is_null', 'basic', 'is_null', [('null', 'dec?<38,3>')], ('true', 'bool')),
    # comparison/is_true.test
    Case('comparison/is_true', 'basic', 'is_true', [('true', 'bool')], ('true', 'bool')),
    Case('comparison/is_true', 'basic', 'is_true', [('false', 'bool')], ('false', 'bool')),
    Case('comparison/is_true', 'basic', 'is_true', [('null', 'bool?')], ('false', 'bool')),
    # comparison/lt.test
    Case('comparison/lt', 'basic', 'lt', [('1', 'i8'), ('2', 'i8')], ('true', 'bool')),
    Case('comparison/lt', 'basic', 'lt', [('200', 'i16'), ('100', 'i16')], ('false', 'bool')),
    Case('comparison/lt', 'basic', 'lt', [('1000', 'i16'), ('1000', 'i16')], ('false', 'bool')),
    Case('comparison/lt', 'basic', 'lt', [('2000000000', 'i32'), ('1000000000', 'i32')], ('false', 'bool')),
    Case('comparison/lt', 'basic', 'lt', [('-922337203685775808', 'i64'), ('-922337203685775807', 'i64')], ('true', 'bool')),
    Case('comparison/lt', 'basic', 'lt', [('7.25', 'fp32'), ('2.50', 'fp32')], ('false', 'bool')),
    Case('comparison/lt', 'basic', 'lt', [('7.25', 'dec<38,2>'), ('7.25', 'dec<38,2>')], ('false', 'bool')),
    Case('comparison/lt', 'basic', 'lt', [('2.49', 'dec<38,2>'), ('2.50', 'dec<38,2>')], ('true', 'bool')),
    Case('comparison/lt', 'basic', 'lt', [('1.5e+308', 'fp64'), ('inf', 'fp64')], ('true', 'bool')),
    Case('comparison/lt', 'basic', 'lt', [('-1.5e+308', 'fp64'), ('-inf', 'fp64')], ('false', 'bool')),
    Case('comparison/lt', 'null_input', 'lt', [('null', 'dec?<38,2>'), ('2.50', 'dec<38,2>')], ('null', 'bool?')),
    Case('comparison/lt', 'null_input', 'lt', [('null', 'dec?<38,2>'), ('null', 'dec?<38,2>')], ('null', 'bool?')),
    Case('comparison/lt', 'null_input', 'lt', [('null', 'i16?'), ('1', 'i16')], ('null', 'bool?')),
    Case('comparison/lt', 'null_input', 'lt', [('2', 'i16'), ('null', 'i16?')], ('null', 'bool?')),
    Case('comparison/lt', 'null_input', 'lt', [('null', 'i16?'), ('null', 'i16?')], ('null', 'bool?')),
    # comparison/lte.test
    Case('comparison/lte', 'basic', 'lte', [('1', 'i8'), ('2', 'i8')], ('true', 'bool')),
    Case('comparison/lte', 'basic', 'lte', [('2', 'i8'), ('2', 'i8')], ('true', 'bool')),
    Case('comparison/lte', 'basic', 'lte', [('200', 'i16'), ('199', 'i16')], ('false', 'bool')),
    Case('comparison/lte', 'basic', 'lte', [('2000000000', 'i32'), ('1000000000', 'i32')], ('false', 'bool')),
    Case('comparison/lte', 'basic', 'lte', [('-922337203685775808', 'i64'), ('-922337203685775807', 'i64')], ('true', 'bool')),
    Case('comparison/lte', 'basic', 'lte', [('7.00', 'fp32'), ('2.50', 'fp32')], ('false', 'bool')),
    Case('comparison/lte', 'basic', 'lte', [('7.25', 'fp32'), ('7.25', 'fp32')], ('true', 'bool')),
    Case('comparison/lte', 'basic', 'lte', [('7.25', 'dec<38,2>'), ('7.25', 'dec<38,2>')], ('true', 'bool')),
    Case('comparison/lte', 'basic', 'lte', [('2.59', 'dec<38,2>'), ('2.50', 'dec<38,2>')], ('false', 'bool')),
    Case('comparison/lte', 'basic', 'lte', [('1.5e+308', 'fp64'), ('inf', 'fp64')], ('true', 'bool')),
    Case('comparison/lte', 'basic', 'lte', [('inf', 'fp64'), ('inf', 'fp64')], ('true', 'bool')),
    Case('comparison/lte', 'basic', 'lte', [('-1.5e+308', 'fp64'), ('-inf', 'fp64')], ('false', 'bool')),
    Case('comparison/lte', 'null_input', 'lte', [('null', 'dec?<38,2>'), ('2.50', 'dec<38,2>')], ('null', 'bool?')),
    Case('comparison/lte', 'null_input', 'lte', [('null', 'dec?<38,2>'), ('null', 'dec?<38,2>')], ('null', 'bool?')),
    Case('comparison/lte', 'null_input', 'lte', [('null', 'i16?'), ('1', 'i16')], ('null', 'bool?')),
    Case('comparison/lte', 'null_input', 'lte', [('2', 'i16'), ('null', 'i16?')], ('null', 'bool?')),
    Case('comparison/lte', 'null_input', 'lte', [('null', 'i16?'), ('null', 'i16?')], ('null', 'bool?')),
    # comparison/not_equal.test
    Case('comparison/not_equal', 'basic', 'not_equal', [('1', 'i8'), ('1', 'i8')], ('false', 'bool')),
    Case('comparison/not_equal', 'basic', 'not_equal', [('300', 'i16'), ('200', 'i16')], ('true', 'bool')),
    Case('comparison/not_equal', 'basic', 'not_equal', [('-2147483648', 'i32'), ('-2147483648', 'i32')], ('false', 'bool')),
    Case('comparison/not_equal', 'basic', 'not_equal', [('9223372036854775807', 'i64'), ('9223372036854775804', 'i64')], ('true', 'bool')),
    Case('comparison/not_equal', 'basic', 'not_equal', [('9223372036854775807', 'dec<38,0>'), ('9223372036854775804', 'dec<38,0>')], ('true', 'bool')),
    Case('comparison/not_equal', 'basic', 'not_equal', [('9223372036854775804', 'dec<38,0>'), ('9223372036854775804', 'dec<38,0>')], ('false', 'bool')),
    Case('comparison/not_equal', 'basic', 'not_equal', [('inf', 'fp64'), ('inf', 'fp64')], ('false', 'bool')),
    Case('comparison/not_equal', 'basic', 'not_equal', [('inf', 'fp64'), ('1.5e+308', 'fp64')], ('true', 'bool')),
    Case('comparison/not_equal', 'basic', 'not_equal', [('inf', 'fp64'), ('-inf', 'fp64')], ('true', 'bool')),
    Case('comparison/not_equal', 'null_input', 'not_equal', [('null', 'dec?<38,2>'), ('2.50', 'dec<38,2>')], ('null', 'bool?')),
    Case('comparison/not_equal', 'null_input', 'not_equal', [('null', 'dec?<38,2>'), ('null', 'dec?<38,2>')], ('null', 'bool?')),
    Case('comparison/not_equal', 'null_input', 'not_equal', [('null', 'i16?'), ('1', 'i16')], ('null', 'bool?')),
    Case('comparison/not_equal', 'null_input', 'not_equal', [('null', 'i16?'), ('null', 'i16?')], ('null', 'bool?')),
    # comparison/nullif.test
    Case('comparison/nullif', 'basic', 'nullif', [('10', 'i8'), ('2', 'i8')], ('10', 'i8?')),
    Case('comparison/nullif', 'basic', 'nullif', [('3', 'i8'), ('3', 'i8')], ('null', 'i8?')),
    Case('comparison/nullif', 'basic', 'nullif', [('1', 'i16'), ('5', 'i16')], ('1', 'i16?')),
    Case('comparison/nullif', 'basic', 'nullif', [('1', 'i16'), ('1', 'i16')], ('null', 'i16?')),
    Case('comparison/nullif', 'basic', 'nullif', [('7.25', 'fp32'), ('1.00', 'fp32')], ('7.25', 'fp32?')),
    Case('comparison/nullif', 'basic', 'nullif', [('1.11', 'fp32'), ('1.11', 'fp32')], ('null', 'fp32?')),
    Case('comparison/nullif', 'basic', 'nullif', [('false', 'bool'), ('true', 'bool')], ('false', 'bool?')),
    Case('comparison/nullif', 'basic', 'nullif', [('true', 'bool'), ('false', 'bool')], ('true', 'bool?')),
    Case('comparison/nullif', 'basic', 'nullif', [('false', 'bool'), ('false', 'bool')], ('null', 'bool?')),
    Case('comparison/nullif', 'basic', 'nullif', [('true', 'bool'), ('true', 'bool')], ('null', 'bool?')),
    Case('comparison/nullif', 'null_input', 'nullif', [('null', 'bool?'), ('true', 'bool')], ('null', 'bool?')),
    Case('comparison/nullif', 'null_input', 'nullif', [('true', 'bool'), ('null', 'bool?')], ('true', 'bool?')),
    Case('comparison/nullif', 'null_input', 'nullif', [('null', 'bool?'), ('null', 'bool?')], ('null', 'bool?')),
    Case('comparison/nullif', 'null_input', 'nullif', [('10', 'dec<38,0>'), ('null', 'dec?<38,0>')], ('10', 'dec?<38,0>')),
    Case('comparison/nullif', 'null_input', 'nullif', [('null', 'dec?<38,0>'), ('null', 'dec?<38,0>')], ('null', 'dec?<38,0>')),
    # logarithmic/ln.test
    Case('logarithmic/ln', 'basic', 'ln', [('100000', 'i64')], ('11.512925464970229', 'fp64')),
    Case('logarithmic/ln', 'basic', 'ln', [('1.0', 'fp32')], ('0', 'fp32')),
    Case('logarithmic/ln', 'basic', 'ln', [('2.015', 'fp64')], ('0.7006191953986464', 'fp64')),
    Case('logarithmic/ln', 'infinity', 'ln', [('-inf', 'fp64')], ERROR, {'on_domain_error': 'ERROR'}),
    Case('logarithmic/ln', 'infinity', 'ln', [('-inf', 'fp64')], ('nan', 'fp64'), {'on_domain_error': 'NAN'}),
    Case('logarithmic/ln', 'infinity', 'ln', [('-inf', 'fp64')], ('null', 'fp64?'), {'on_domain_error': 'NONE'}),
    Case('logarithmic/ln', 'infinity', 'ln', [('inf', 'fp64')], ('inf', 'fp64')),
    Case('logarithmic/ln', 'log_zero', 'ln', [('0.0', 'fp64')], ERROR, {'on_log_zero': 'ERROR'}),
    Case('logarithmic/ln', 'log_zero', 'ln', [('0.0', 'fp64')], ('null', 'fp64?'), {'on_log_zero': 'NAN'}, differs=NAN_OPTION_GIVES_NULL),
    Case('logarithmic/ln', 'log_zero', 'ln', [('0.0', 'fp64')], ('-inf', 'fp64'), {'on_log_zero': 'MINUS_INFINITY'}),
    # logarithmic/log10.test
    Case('logarithmic/log10', 'basic', 'log10', [('100000', 'i64')], ('5.0', 'fp64')),
    Case('logarithmic/log10', 'basic', 'log10', [('1.0', 'fp32')], ('0', 'fp32')),
    Case('logarithmic/log10', 'basic', 'log10', [('2.015', 'fp64')], ('0.3042750504771283', 'fp64')),
    Case('logarithmic/log10', 'infinity', 'log10', [('-inf', 'fp64')], ERROR, {'on_domain_error': 'ERROR'}),
    Case('logarithmic/log10', 'infinity', 'log10', [('-inf', 'fp64')], ('nan', 'fp64'), {'on_domain_error': 'NAN'}),
    Case('logarithmic/log10', 'infinity', 'log10', [('-inf', 'fp64')], ('null', 'fp64?'), {'on_domain_error': 'NONE'}),
    Case('logarithmic/log10', 'infinity', 'log10', [('inf', 'fp64')], ('inf', 'fp64')),
    Case('logarithmic/log10', 'log_zero', 'log10', [('0.0', 'fp64')], ERROR, {'on_log_zero': 'ERROR'}),
    Case('logarithmic/log10', 'log_zero', 'log10', [('0.0', 'fp64')], ('null', 'fp64?'), {'on_log_zero': 'NAN'}, differs=NAN_OPTION_GIVES_NULL),
    Case('logarithmic/log10', 'log_zero', 'log10', [('0.0', 'fp64')], ('-inf', 'fp64'), {'on_log_zero': 'MINUS_INFINITY'}),
    # logarithmic/log2.test
    Case('logarithmic/log2', 'basic', 'log2', [('100000', 'i64')], ('16.609640474436812', 'fp64')),
    Case('logarithmic/log2', 'basic', 'log2', [('1.0', 'fp32')], ('0', 'fp32')),
    Case('logarithmic/log2', 'basic', 'log2', [('8.0', 'fp64')], ('3.0', 'fp64')),
    Case('logarithmic/log2', 'basic', 'log2', [('2.015', 'fp64')], ('1.0107798387532427', 'fp64')),
    Case('logarithmic/log2', 'infinity', 'log2', [('-inf', 'fp64')], ERROR, {'on_domain_error': 'ERROR'}),
    Case('logarithmic/log2', 'infinity', 'log2', [('-inf', 'fp64')], ('nan', 'fp64'), {'on_domain_error': 'NAN'}),
    Case('logarithmic/log2', 'infinity', 'log2', [('-inf', 'fp64')], ('null', 'fp64?'), {'on_domain_error': 'NONE'}),
    Case('logarithmic/log2', 'infinity', 'log2', [('inf', 'fp64')], ('inf', 'fp64')),
    Case('logarithmic/log2', 'log_zero', 'log2', [('0.0', 'fp64')], ERROR, {'on_log_zero': 'ERROR'}),
    Case('logarithmic/log2', 'log_zero', 'log2', [('0.0', 'fp64')], ('null', 'fp64?'), {'on_log_zero': 'NAN'}, differs=NAN_OPTION_GIVES_NULL),
    Case('logarithmic/log2', 'log_zero', 'log2', [('0.0', 'fp64')], ('-inf', 'fp64'), {'on_log_zero': 'MINUS_INFINITY'}),
    # logarithmic/logb.test
    Case('logarithmic/logb', 'basic', 'logb', [('10', 'i64'), ('100000', 'i64')], ('5.0', 'fp64'), differs=LOGB_ORDER, arrow=('0.2', 'fp64')),
    Case('logarithmic/logb', 'basic', 'logb', [('7', 'fp64'), ('1.0', 'fp64')], ('0', 'fp64'), differs=LOGB_ORDER, arrow=('inf', 'fp64')),
    Case('logarithmic/logb', 'basic', 'logb', [('2', 'fp64'), ('7', 'fp64')], ('2.8073549220576041', 'fp64'), differs=LOGB_ORDER, arrow=('0.3562071871080222', 'fp64')),
    Case('logarithmic/logb', 'infinity', 'logb', [('2.34', 'fp64'), ('inf', 'fp64')], ('inf', 'fp64'), differs=LOGB_ORDER, arrow=('0.0', 'fp64')),
    Case('logarithmic/logb', 'infinity', 'logb', [('10', 'fp64'), ('-inf', 'fp64')], ERROR, {'on_domain_error': 'ERROR'}),
    Case('logarithmic/logb', 'infinity', 'logb', [('10', 'fp64'), ('-inf', 'fp64')], ('nan', 'fp64'), {'on_domain_error': 'NAN'}),
    Case('logarithmic/logb', 'infinity', 'logb', [('10', 'fp64'), ('-inf', 'fp64')], ('null', 'fp64?'), {'on_domain_error': 'NONE'}),
    Case('logarithmic/logb', 'log_zero', 'logb', [('2.0', 'fp64'), ('0.0', 'fp64')], ERROR, {'on_log_zero': 'ERROR'}),
    Case('logarithmic/logb', 'log_zero', 'logb', [('2.0', 'fp64'), ('0.0', 'fp64')], ('null', 'fp64?'), {'on_log_zero': 'NAN'}, differs=NAN_OPTION_GIVES_NULL),
    Case('logarithmic/logb', 'log_zero', 'logb', [('2.0', 'fp64'), ('0.0', 'fp64')], ('-inf', 'fp64'), {'on_log_zero': 'MINUS_INFINITY'}),
    # rounding/ceil.test
    Case('rounding/ceil', 'basic', 'ceil', [('2.25', 'fp32')], ('3', 'fp32')),
    Case('rounding/ceil', 'basic', 'ceil', [('2.0000007152557373046875', 'fp64')], ('3', 'fp64')),
    Case('rounding/ceil', 'basic', 'ceil', [('-65.500000001223334444', 'fp64')], ('-65', 'fp64')),
    # rounding/floor.test
    Case('rounding/floor', 'basic', 'floor', [('2.25', 'fp32')], ('2', 'fp32')),
    Case('rounding/floor', 'basic', 'floor', [('2.0000007152557373046875', 'fp64')], ('2', 'fp64')),
    Case('rounding/floor', 'basic', 'floor', [('-65.490000001223334444', 'fp64')], ('-66', 'fp64')),
    # rounding/round.test
    Case('rounding/round', 'basic', 'round', [('2', 'i8'), ('2', 'i32')], ('2', 'i8?')),
    Case('rounding/round', 'basic', 'round', [('2.75', 'fp32'), ('1', 'i32')], ('2.8', 'fp32?')),
    Case('rounding/round', 'basic', 'round', [('2.0000007152457373046875', 'fp64'), ('10', 'i32')], ('2.0000007152', 'fp64?')),
    Case('rounding/round', 'basic', 'round', [('2.0000007152457373046875', 'fp64'), ('10', 'i32')], ('2.0000007152', 'fp64?')),
    Case('rounding/round', 'negative_rounding', 'round', [('2', 'i8'), ('-2', 'i32')], ('0', 'i8?')),
    Case('rounding/round', 'negative_rounding', 'round', [('123', 'i8'), ('-2', 'i32')], ('100', 'i8?')),
    Case('rounding/round', 'negative_rounding', 'round', [('8793', 'i16'), ('-2', 'i32')], ('8800', 'i16?')),
]
