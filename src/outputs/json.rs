//! A tiny JSON writer for the outputs: fields come out in the order they are written (Spark's
//! JsonProtocol order matters to readers diffing logs), numbers stay numbers, and nothing is
//! built as a tree first, so a 100,000-task event log or timeline streams at memory speed.

use std::fmt::Write as _;

/// Appends `s` as a JSON string literal (quotes included). Runs of plain bytes are copied
/// whole: most strings need no escaping, and this is the writers' hottest loop.
pub fn push_str(out: &mut String, s: &str) {
    out.push('"');
    let mut start = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0..=0x1f => "",
            _ => continue,
        };
        // `i` is an ASCII byte, so both slices end on character boundaries.
        out.push_str(&s[start..i]);
        if esc.is_empty() {
            let _ = write!(out, "\\u{b:04x}");
        } else {
            out.push_str(esc);
        }
        start = i + 1;
    }
    out.push_str(&s[start..]);
    out.push('"');
}

/// A JSON number, written without the formatting machinery (timelines hold millions).
pub trait Num {
    fn write_to(&self, out: &mut String);
}

impl Num for u64 {
    fn write_to(&self, out: &mut String) {
        out.push_str(sparkyard_messages::jvm_text::Decimal::new(*self).as_str());
    }
}

impl Num for u32 {
    fn write_to(&self, out: &mut String) {
        u64::from(*self).write_to(out);
    }
}

impl Num for u16 {
    fn write_to(&self, out: &mut String) {
        u64::from(*self).write_to(out);
    }
}

impl Num for usize {
    fn write_to(&self, out: &mut String) {
        (*self as u64).write_to(out);
    }
}

impl Num for i32 {
    fn write_to(&self, out: &mut String) {
        if *self < 0 {
            out.push('-');
        }
        u64::from(self.unsigned_abs()).write_to(out);
    }
}

impl Num for i64 {
    fn write_to(&self, out: &mut String) {
        if *self < 0 {
            out.push('-');
        }
        self.unsigned_abs().write_to(out);
    }
}

/// A number already spelled out (`1.0`).
impl Num for &str {
    fn write_to(&self, out: &mut String) {
        out.push_str(self);
    }
}

impl<T: Num> Num for &T {
    fn write_to(&self, out: &mut String) {
        (*self).write_to(out);
    }
}

/// An object being written; `{` is written on creation and `}` by [`Obj::end`].
pub struct Obj<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Obj<'a> {
    pub fn new(out: &'a mut String) -> Self {
        out.push('{');
        Obj { out, first: true }
    }

    /// A field name: the writers' own names are plain ASCII, so only names that come from data
    /// (`map` keys) are escaped.
    fn key(&mut self, k: &str) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
        if k.bytes().all(|b| b >= 0x20 && b != b'"' && b != b'\\') {
            self.out.push('"');
            self.out.push_str(k);
            self.out.push_str("\":");
        } else {
            push_str(self.out, k);
            self.out.push(':');
        }
    }

    pub fn str(&mut self, k: &str, v: &str) -> &mut Self {
        self.key(k);
        push_str(self.out, v);
        self
    }

    pub fn num(&mut self, k: &str, v: impl Num) -> &mut Self {
        self.key(k);
        v.write_to(self.out);
        self
    }

    pub fn bool(&mut self, k: &str, v: bool) -> &mut Self {
        self.key(k);
        self.out.push_str(if v { "true" } else { "false" });
        self
    }

    /// A nested object filled by `f`.
    pub fn obj(&mut self, k: &str, f: impl FnOnce(&mut Obj<'_>)) -> &mut Self {
        self.key(k);
        let mut o = Obj::new(self.out);
        f(&mut o);
        o.end();
        self
    }

    /// A string-to-string map, in the given order.
    pub fn map<K: AsRef<str>, V: AsRef<str>>(&mut self, k: &str, pairs: &[(K, V)]) -> &mut Self {
        self.obj(k, |o| {
            for (pk, pv) in pairs {
                o.str(pk.as_ref(), pv.as_ref());
            }
        })
    }

    /// An array whose elements `f` writes through [`Arr`].
    pub fn arr(&mut self, k: &str, f: impl FnOnce(&mut Arr<'_>)) -> &mut Self {
        self.key(k);
        let mut a = Arr::new(self.out);
        f(&mut a);
        a.end();
        self
    }

    pub fn end(self) {
        self.out.push('}');
    }
}

/// An array being written.
pub struct Arr<'a> {
    out: &'a mut String,
    first: bool,
}

impl<'a> Arr<'a> {
    fn new(out: &'a mut String) -> Self {
        out.push('[');
        Arr { out, first: true }
    }

    fn sep(&mut self) {
        if !self.first {
            self.out.push(',');
        }
        self.first = false;
    }

    pub fn num(&mut self, v: impl Num) {
        self.sep();
        v.write_to(self.out);
    }

    pub fn str(&mut self, v: &str) {
        self.sep();
        push_str(self.out, v);
    }

    pub fn obj(&mut self, f: impl FnOnce(&mut Obj<'_>)) {
        self.sep();
        let mut o = Obj::new(self.out);
        f(&mut o);
        o.end();
    }

    fn end(self) {
        self.out.push(']');
    }
}

/// Writes one top-level object into `out`.
pub fn object(out: &mut String, f: impl FnOnce(&mut Obj<'_>)) {
    let mut o = Obj::new(out);
    f(&mut o);
    o.end();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_orders_fields() {
        let mut s = String::new();
        object(&mut s, |o| {
            o.str("b", "é q\"\\\n\u{1}")
                .num("a", 30u64)
                .num("n", -7)
                .bool("c", false);
            o.arr("d", |a| {
                a.num(0u32);
                a.obj(|o| {
                    o.str("x", "y");
                });
            });
        });
        assert_eq!(
            s,
            r#"{"b":"é q\"\\\n\u0001","a":30,"n":-7,"c":false,"d":[0,{"x":"y"}]}"#
        );
    }
}
