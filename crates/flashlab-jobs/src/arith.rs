//! fio's arithmetic in option values, read from fio's HOWTO ("Job file parameters") and its
//! expression grammar (`exp/expression-parser.y`):
//!
//! - A value that starts with `(` is an expression: `+ - * / % ^`, parentheses, unary minus,
//!   integers (decimal or `0x` hex) and decimals, and unit suffixes after any operand or
//!   parenthesised group (`(1+2)*4k`, `(10/2)m`). Suffixes: `k`/`kb` 1024, `m`/`mb` 1024²,
//!   `g`/`gb`, `t`/`tb`, `p`/`pb`; `kib` 1000, `mib` 1000², `gib` 1000³, `pib` 1000⁵; for time
//!   options `us`, `ms`, `s`, `m` (minutes), `h`, `d`, the value being in microseconds.
//!   Binding, loosest first as in fio's grammar: `+ -`, a suffix, `* /`, `^` (right to left),
//!   `%`. Integer operands give integer results (division truncates); a decimal anywhere makes
//!   the operation floating point. Division or modulo by zero is an error.
//! - After `$ncpus`, `$mb_memory` or `$pagesize` is replaced (see [`Keywords`]), fio hands a
//!   value with `+ - * /` to `bc`: integer arithmetic on plain numbers ([`eval_plain`]).
//!
//! flashlab's own code, not fio's; the differences: fio's lexer reads `pib` as 1000⁴, here it
//! is 1000⁵ as its name says.

/// The values of fio's reserved keywords, from the machine the job file is read on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Keywords {
    /// `$pagesize`: the page size in bytes.
    pub pagesize: u64,
    /// `$mb_memory`: physical memory in MiB.
    pub mb_memory: u64,
    /// `$ncpus`: CPUs configured.
    pub ncpus: u64,
}

impl Keywords {
    /// This machine's values: the page size (4096 unless the kernel's `/proc/self/smaps`
    /// says otherwise), `MemTotal` of `/proc/meminfo`, and the CPUs the process can use.
    pub fn of_this_machine() -> Keywords {
        let mb_memory = std::fs::read_to_string("/proc/meminfo")
            .ok()
            .and_then(|t| {
                t.lines().find_map(|l| {
                    let kb = l.strip_prefix("MemTotal:")?.trim().strip_suffix("kB")?.trim();
                    kb.parse::<u64>().ok()
                })
            })
            .map_or(0, |kb| kb / 1024);
        let pagesize = std::fs::read_to_string("/proc/self/smaps")
            .ok()
            .and_then(|t| {
                t.lines().find_map(|l| {
                    let kb = l.strip_prefix("KernelPageSize:")?.trim().strip_suffix("kB")?.trim();
                    kb.parse::<u64>().ok()
                })
            })
            .map_or(4096, |kb| kb * 1024);
        let ncpus = std::thread::available_parallelism().map_or(1, |n| n.get() as u64);
        Keywords { pagesize, mb_memory, ncpus }
    }

    /// Replaces every `$pagesize`, `$mb_memory` and `$ncpus` in `text`; true if any was.
    pub fn replace(&self, text: &str) -> (String, bool) {
        let mut out = text.to_string();
        let mut any = false;
        for (word, v) in [("$pagesize", self.pagesize), ("$mb_memory", self.mb_memory), ("$ncpus", self.ncpus)] {
            if out.contains(word) {
                out = out.replace(word, &v.to_string());
                any = true;
            }
        }
        (out, any)
    }
}

/// A value computed by an expression.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Value {
    /// The value as an integer (truncated when floating point).
    pub int: i128,
    /// The value as a float.
    pub float: f64,
    /// A unit suffix appeared, so no implied unit applies.
    pub has_units: bool,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Tok {
    Num { int: i128, float: f64, is_float: bool },
    Suffix { int: i128, float: f64, is_float: bool },
    Op(char),
}

#[derive(Debug, Clone, Copy)]
struct V {
    int: i128,
    float: f64,
    is_float: bool,
}

fn lex(text: &str, is_time: bool, suffixes: bool) -> Result<Vec<Tok>, String> {
    let b = text.as_bytes();
    let mut i = 0;
    let mut out = Vec::new();
    while i < b.len() {
        let c = b[i] as char;
        if c == ' ' || c == '\t' {
            i += 1;
            continue;
        }
        if "+-*/%^()".contains(c) {
            out.push(Tok::Op(c));
            i += 1;
            continue;
        }
        if c.is_ascii_digit() || c == '.' {
            let start = i;
            if text[i..].starts_with("0x") || text[i..].starts_with("0X") {
                i += 2;
                let h = i;
                while i < b.len() && b[i].is_ascii_hexdigit() {
                    i += 1;
                }
                let v =
                    i128::from_str_radix(&text[h..i], 16).map_err(|_| format!("bad number '{}'", &text[start..i]))?;
                out.push(Tok::Num { int: v, float: v as f64, is_float: false });
                continue;
            }
            while i < b.len() && (b[i].is_ascii_digit() || b[i] == b'.') {
                i += 1;
            }
            // An exponent: 1e6, 2.5E-3.
            if i < b.len() && (b[i] == b'e' || b[i] == b'E') {
                let mut j = i + 1;
                if j < b.len() && (b[j] == b'+' || b[j] == b'-') {
                    j += 1;
                }
                if j < b.len() && b[j].is_ascii_digit() {
                    while j < b.len() && b[j].is_ascii_digit() {
                        j += 1;
                    }
                    i = j;
                }
            }
            let s = &text[start..i];
            if s.contains(['.', 'e', 'E']) {
                let f: f64 = s.parse().map_err(|_| format!("bad number '{s}'"))?;
                out.push(Tok::Num { int: f as i128, float: f, is_float: true });
            } else {
                let v: i128 = s.parse().map_err(|_| format!("bad number '{s}'"))?;
                out.push(Tok::Num { int: v, float: v as f64, is_float: false });
            }
            continue;
        }
        if c.is_ascii_alphabetic() && suffixes {
            let start = i;
            while i < b.len() && b[i].is_ascii_alphabetic() {
                i += 1;
            }
            let word = text[start..i].to_ascii_lowercase();
            let k: i128 = 1024;
            let (int, float) = match word.as_str() {
                "k" | "kb" => (k, false),
                "mb" => (k * k, false),
                "m" if is_time => (60_000_000, false),
                "m" => (k * k, false),
                "g" | "gb" => (k * k * k, false),
                "t" | "tb" => (k * k * k * k, false),
                "p" | "pb" => (k * k * k * k * k, false),
                "kib" => (1000, false),
                "mib" => (1_000_000, false),
                "gib" => (1_000_000_000, false),
                "pib" => (1_000_000_000_000_000, false),
                "us" => (1, true),
                "ms" => (1000, true),
                "s" => (1_000_000, false),
                "h" => (3_600_000_000, false),
                "d" => (86_400_000_000, false),
                _ => return Err(format!("unknown unit '{}' in the expression", &text[start..i])),
            };
            out.push(Tok::Suffix { int, float: int as f64, is_float: float });
            continue;
        }
        return Err(format!("unexpected '{c}' in the expression"));
    }
    Ok(out)
}

struct Parser {
    toks: Vec<Tok>,
    pos: usize,
    has_units: bool,
}

// Binding powers, loosest first, as fio's grammar declares them.
const BP_ADD: u8 = 1;
const BP_SUFFIX: u8 = 2;
const BP_MUL: u8 = 3;
const BP_POW: u8 = 4;
const BP_MOD: u8 = 5;

fn binop(op: char, a: V, b: V) -> Result<V, String> {
    let float = a.is_float || b.is_float;
    let f = |x: f64| V { int: x as i128, float: x, is_float: true };
    let i = |x: i128| V { int: x, float: x as f64, is_float: false };
    let overflow = || "the expression overflows".to_string();
    Ok(match op {
        '+' if float => f(a.float + b.float),
        '+' => i(a.int.checked_add(b.int).ok_or_else(overflow)?),
        '-' if float => f(a.float - b.float),
        '-' => i(a.int.checked_sub(b.int).ok_or_else(overflow)?),
        '*' if float => f(a.float * b.float),
        '*' => i(a.int.checked_mul(b.int).ok_or_else(overflow)?),
        '/' if float => {
            if b.float == 0.0 {
                return Err("division by zero".into());
            }
            f(a.float / b.float)
        }
        '/' => i(a.int.checked_div(b.int).ok_or("division by zero")?),
        '%' if float => return Err("modulo of a decimal number".into()),
        '%' => i(a.int.checked_rem(b.int).ok_or("division by zero")?),
        '^' if !float && b.int >= 0 => {
            let e = u32::try_from(b.int).map_err(|_| overflow())?;
            i(a.int.checked_pow(e).ok_or_else(overflow)?)
        }
        '^' => f(a.float.powf(b.float)),
        _ => return Err(format!("unexpected '{op}'")),
    })
}

impl Parser {
    fn peek(&self) -> Option<Tok> {
        self.toks.get(self.pos).copied()
    }

    fn expr(&mut self, min_bp: u8, depth: u32) -> Result<V, String> {
        if depth > 64 {
            return Err("the expression nests too deeply".into());
        }
        let mut lhs = match self.peek() {
            Some(Tok::Num { int, float, is_float }) => {
                self.pos += 1;
                V { int, float, is_float }
            }
            Some(Tok::Op('(')) => {
                self.pos += 1;
                let v = self.expr(0, depth + 1)?;
                if self.peek() != Some(Tok::Op(')')) {
                    return Err("a '(' without its ')'".into());
                }
                self.pos += 1;
                v
            }
            Some(Tok::Op('-')) => {
                self.pos += 1;
                let v = self.expr(BP_MOD + 1, depth + 1)?;
                V { int: -v.int, float: -v.float, is_float: v.is_float }
            }
            Some(Tok::Op(c)) => return Err(format!("expected a number, found '{c}'")),
            Some(Tok::Suffix { .. }) => return Err("a unit without a number before it".into()),
            None => return Err("the expression ends too early".into()),
        };
        loop {
            match self.peek() {
                Some(Tok::Suffix { int, float, is_float }) if BP_SUFFIX >= min_bp => {
                    self.pos += 1;
                    self.has_units = true;
                    lhs = binop('*', lhs, V { int, float, is_float })?;
                }
                Some(Tok::Op(op)) if "+-*/%^".contains(op) => {
                    let (bp, right) = match op {
                        '+' | '-' => (BP_ADD, false),
                        '*' | '/' => (BP_MUL, false),
                        '^' => (BP_POW, true),
                        _ => (BP_MOD, false),
                    };
                    if bp < min_bp {
                        break;
                    }
                    self.pos += 1;
                    let rhs = self.expr(if right { bp } else { bp + 1 }, depth + 1)?;
                    lhs = binop(op, lhs, rhs)?;
                }
                _ => break,
            }
        }
        Ok(lhs)
    }
}

fn run(text: &str, is_time: bool, suffixes: bool) -> Result<Value, String> {
    let toks = lex(text, is_time, suffixes)?;
    let mut p = Parser { toks, pos: 0, has_units: false };
    let v = p.expr(0, 0)?;
    match p.peek() {
        None => Ok(Value { int: v.int, float: v.float, has_units: p.has_units }),
        Some(Tok::Op(')')) => Err("a ')' without its '('".into()),
        Some(_) => Err("an operator is missing".into()),
    }
}

/// Evaluates one of fio's parenthesised expressions (`(1+2)*4k`). `is_time`: `m` means
/// minutes and the value is in microseconds.
pub fn eval(text: &str, is_time: bool) -> Result<Value, String> {
    run(text, is_time, true)
}

/// Evaluates a value as `bc` does after fio replaced a keyword: integers and `+ - * / % ^`
/// with parentheses, division truncating; no units.
pub fn eval_plain(text: &str) -> Result<i128, String> {
    let v = run(text, false, false)?;
    if v.float.fract() != 0.0 && v.int as f64 != v.float {
        return Ok(v.float.trunc() as i128);
    }
    Ok(v.int)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(s: &str) -> i128 {
        eval(s, false).unwrap_or_else(|e| panic!("{s}: {e}")).int
    }

    #[test]
    fn operators_and_precedence() {
        assert_eq!(int("(1+2)*4"), 12);
        assert_eq!(int("(1+2)*4k"), 12 * 1024);
        assert_eq!(int("1+2*3"), 7);
        assert_eq!(int("(7-2-1)"), 4, "left to right");
        assert_eq!(int("(2^3^2)"), 512, "'^' groups right to left");
        assert_eq!(int("(10*7%4)"), 30, "'%' binds tighter than '*'");
        assert_eq!(int("(10/3)"), 3, "integer division truncates");
        assert_eq!(int("(1+2k)"), 2049, "a suffix binds tighter than '+'");
        assert_eq!(int("(10/2k)"), 5 * 1024, "and looser than '/'");
        assert_eq!(int("(-4+10)"), 6);
        assert_eq!(int("(0x10*2)"), 32);
        assert_eq!(int("((1+1)*(2+2))"), 8);
        assert_eq!(int("(1kib)"), 1000);
        assert_eq!(int("(2m)"), 2 << 20);
        let v = eval("(1.5*2)", false).unwrap();
        assert_eq!((v.int, v.float), (3, 3.0));
        assert!(!v.has_units);
        assert!(eval("(4k)", false).unwrap().has_units);
    }

    #[test]
    fn time_units_are_microseconds() {
        assert_eq!(eval("(1m+30s)", true).unwrap().int, 90_000_000);
        assert_eq!(eval("(2ms)", true).unwrap().int, 2000);
        assert!(!eval("(3+4)", true).unwrap().has_units);
    }

    #[test]
    fn errors_say_what_is_wrong() {
        assert!(eval("(1/0)", false).unwrap_err().contains("division by zero"));
        assert!(eval("(1%0)", false).unwrap_err().contains("division by zero"));
        assert!(eval("(1+2", false).unwrap_err().contains("without its ')'"));
        assert!(eval("(1+2))", false).unwrap_err().contains("without its '('"));
        assert!(eval("(1+)", false).unwrap_err().contains("expected a number"));
        assert!(eval("(4q)", false).unwrap_err().contains("unknown unit 'q'"));
        assert!(eval("(2^200)", false).unwrap_err().contains("overflows"));
        assert!(eval("(1.5%2)", false).unwrap_err().contains("decimal"));
        let deep = format!("{}1{}", "(".repeat(100), ")".repeat(100));
        assert!(eval(&deep, false).unwrap_err().contains("deeply"));
    }

    #[test]
    fn bc_style_math_after_keywords() {
        let k = Keywords { pagesize: 4096, mb_memory: 2000, ncpus: 8 };
        let (s, any) = k.replace("8*$mb_memory");
        assert!(any);
        assert_eq!(eval_plain(&s).unwrap(), 16000);
        let (s, _) = k.replace("$ncpus/3");
        assert_eq!(eval_plain(&s).unwrap(), 2);
        assert_eq!(k.replace("$pagesize").0, "4096");
        assert!(!k.replace("4k").1);
        assert!(eval_plain("4k*2").is_err(), "bc knows no units");
    }

    #[test]
    fn no_input_panics() {
        let alphabet: Vec<char> = "0123456789.xXeE+-*/%^() kmgtpbisuhd#:,".chars().collect();
        let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
        for _ in 0..20_000 {
            let mut s = String::from("(");
            for _ in 0..(x % 24) {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                s.push(alphabet[(x % alphabet.len() as u64) as usize]);
            }
            let _ = eval(&s, x.is_multiple_of(2));
            let _ = eval_plain(&s[1..]);
        }
    }

    #[test]
    fn this_machine_has_values() {
        let k = Keywords::of_this_machine();
        assert!(k.ncpus >= 1 && k.pagesize >= 4096 && k.pagesize.is_power_of_two());
    }
}
