//! A specialised validity check for the shipped schemas' definitions: the question "is this
//! instance valid?" answered without building errors, for the success path of every judgement.
//!
//! Why by hand: the `jsonschema` crate stays the authority (it compiles the schemas, and every
//! error a verdict reports comes from it), but its validator is general: dynamically dispatched
//! keyword objects walking the instance through a representation-generic node abstraction. On a
//! conformant ~1 KB success, skipping schema validation altogether took the bench's
//! classify/parse ratio from about 1.50x to 1.32x: the largest single cost of a judgement beyond
//! the parse. The crate's compile-time validators (`jsonschema-macros`) are not published for
//! the version used here. This module compiles the small keyword subset the shipped schemas use
//! into a flat node table, once per definition, and walks it with one statically dispatched
//! function. In an A/B run of `cargo bench --bench classify` (one build, switched at run time)
//! the 1 KB success measured 1.54x to 1.57x with it and 1.60x to 1.65x without.
//!
//! It is exact or silent, never approximate:
//! * a definition that reaches any keyword outside the subset is not compiled at all (the
//!   engine then asks `jsonschema`), so an unknown keyword can never be skipped;
//! * keyword semantics that are easy to get subtly wrong are borrowed, not re-implemented:
//!   JSON equality for `const`/`enum`, integer-ness for `type: integer` and the exact
//!   `minimum`/`maximum` comparisons come from `jsonschema-value` (the crate the validator itself
//!   uses), and every `format` but `byte` is checked by a `jsonschema` validator of that format
//!   alone;
//! * "invalid" is only a request for the full pass: the engine then runs `jsonschema`'s error
//!   iterator, whose answer stands. A "valid" is final, so debug builds (every test and the
//!   corpus check) assert it against `jsonschema` on every instance judged, and a property test
//!   compares the two on mutated instances of every definition.
//!
//! The walk reads an instance through a small trait, so the same function checks a parsed
//! `serde_json::Value` and a message read onto a `wire::tape` (borrowed tokens, no `Value`
//! built): the stream path puts notifications to it on their tape, and `tests/it/fast_schema.rs`
//! holds both forms to the same answers.
//!
//! Subset: boolean schemas; `type` (one or several), `const`, `enum`, `properties`, `required`,
//! `additionalProperties`, `items` (a schema), `anyOf`, `allOf`, `if`/`then`/`else`, `minimum`,
//! `maximum`, `format`, and `$ref` to `#/$defs/<name>`; `description`, `title`, `$comment`,
//! `default`, `examples` and `deprecated` are annotations and ignored. An `anyOf` whose branches
//! are all objects telling themselves apart by a required `type` member with a string `const`
//! (the content block union) is decided by checking only the branch that constant names, which
//! gives the same answer as trying them all.

use std::collections::BTreeMap;

use jsonschema_value::numeric_check::{BoundOp, CompiledBound, check_bound, compile_bound};
use serde_json::{Map, Value};

use crate::wire::tape::{self, Tok};

/// Instance depth beyond which the fast pass defers to the full validator. Bodies nested past
/// serde_json's 128 levels are judged on a stack grown for their depth (`wire::deep`), so the
/// full validator's recursion is safe there; this cut-off only keeps the fast pass shallow.
const MAX_DEPTH: usize = 256;

const NULL: u8 = 1;
const BOOLEAN: u8 = 2;
const OBJECT: u8 = 4;
const ARRAY: u8 = 8;
const NUMBER: u8 = 16;
const STRING: u8 = 32;
const INTEGER: u8 = 64;

/// One definition, compiled.
pub struct FastValidator {
    nodes: Vec<Node>,
}

impl std::fmt::Debug for FastValidator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FastValidator")
            .field("nodes", &self.nodes.len())
            .finish()
    }
}

enum Format {
    Base64,
    /// A `jsonschema` validator of `{"format": name}` alone, with the engine's options.
    Other(jsonschema::Validator),
}

struct Prop {
    key: Key,
    name: Box<str>,
    schema: u32,
    required: bool,
}

/// A member name's length and first eight bytes: most names are told apart by these
/// without comparing the strings, and a name of at most eight bytes is wholly in its key.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
struct Key(usize, u64);

impl Key {
    fn of(name: &str) -> Key {
        let b = name.as_bytes();
        let prefix = match b.get(..8) {
            Some(first) => u64::from_le_bytes(first.try_into().expect("eight bytes")),
            // The first byte lowest, as read from eight.
            None => b.iter().rev().fold(0, |acc, &c| (acc << 8) | u64::from(c)),
        };
        Key(b.len(), prefix)
    }

    /// Whether `name`, whose key this is, is the name `other` of this key: the same key says
    /// so alone for a name of at most eight bytes.
    fn names(self, name: &str, other: &str) -> bool {
        self.0 <= 8 || name == other
    }
}

// Which keywords a node has (`Node::flags`).
const ALWAYS: u16 = 1;
const NEVER: u16 = 1 << 1;
const TYPES: u16 = 1 << 2;
const CONST: u16 = 1 << 3;
const ENUM: u16 = 1 << 4;
const OBJECT_KEYWORDS: u16 = 1 << 5;
const ADDITIONAL: u16 = 1 << 6;
const ITEMS: u16 = 1 << 7;
const FORMAT: u16 = 1 << 8;
const BOUNDS: u16 = 1 << 9;
const REF: u16 = 1 << 10;
const ALL_OF: u16 = 1 << 11;
const ANY_OF: u16 = 1 << 12;
const CONDITION: u16 = 1 << 13;

#[derive(Default)]
struct Node {
    /// The keywords present, so absent ones cost one bit test.
    flags: u16,
    /// Allowed types as a bit set.
    types: u8,
    konst: Option<Value>,
    enumeration: Vec<Value>,
    properties: Vec<Prop>,
    /// How many of `properties` are required.
    required_declared: usize,
    /// Required names that are not among `properties`.
    required_other: Vec<Box<str>>,
    additional: u32,
    items: u32,
    any_of: Vec<u32>,
    /// `anyOf` branches by the string `const` of their required `type` member, when every
    /// branch is such an object.
    dispatch: Option<Vec<(Box<str>, u32)>>,
    all_of: Vec<u32>,
    reference: u32,
    condition: Option<(u32, Option<u32>, Option<u32>)>,
    bounds: Vec<CompiledBound>,
    format: Option<Format>,
}

/// Why a definition has no fast validator.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

struct Compiler<'s> {
    defs: &'s Map<String, Value>,
    nodes: Vec<Node>,
    by_def: BTreeMap<&'s str, u32>,
}

/// The check of a `format`: `byte` as base64 (as the engine's validators assert it), any other
/// name by a `jsonschema` validator of that format alone, with the engine's options.
fn format_check(name: &str) -> Option<Format> {
    if name == "byte" {
        return Some(Format::Base64);
    }
    super::formats::options()
        .build(&serde_json::json!({ "format": name }))
        .ok()
        .map(Format::Other)
}

impl FastValidator {
    /// Compiles `#/$defs/<name>` of a schema document whose `format` keywords are asserted
    /// (`byte` as base64 through [`super::formats::is_base64`]).
    pub fn compile(root: &Value, name: &str) -> Result<FastValidator, Unsupported> {
        let defs = root
            .get("$defs")
            .and_then(Value::as_object)
            .ok_or_else(|| Unsupported("the document has no $defs".into()))?;
        let mut c = Compiler {
            defs,
            nodes: Vec::new(),
            by_def: BTreeMap::new(),
        };
        let root_id = c.def(name)?;
        debug_assert_eq!(root_id, 0);
        let v = FastValidator { nodes: c.nodes };
        v.check_no_empty_loops()?;
        Ok(v)
    }

    /// Whether `instance` is valid. `false` may also mean "not decided here" (an instance
    /// nested past the depth it follows); the caller then asks the full validator.
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.valid(0, instance, 0)
    }

    /// Whether the instance read onto a tape is valid: the same walk as [`Self::is_valid`],
    /// with the same answer (a tape holds what `serde_json` would have read), building no
    /// `Value` but for a non-string `const` or `enum`, a `format` other than `byte`, and the
    /// bounds and integer-ness of a number that is not plain digits.
    pub fn is_valid_tape(&self, instance: tape::Node<'_, '_>) -> bool {
        self.valid(0, instance, 0)
    }

    fn valid<'v, I: Instance<'v>>(&self, mut id: u32, v: I, depth: usize) -> bool {
        let mut n = &self.nodes[id as usize];
        // A node that is only a `$ref` is its target.
        while n.flags == REF {
            id = n.reference;
            n = &self.nodes[id as usize];
        }
        let f = n.flags;
        if f & (ALWAYS | NEVER) != 0 {
            return f & ALWAYS != 0;
        }
        if depth > MAX_DEPTH {
            return false;
        }
        if f & TYPES != 0 && v.type_bits() & n.types == 0 {
            return false;
        }
        if f & CONST != 0 && !n.konst.as_ref().is_some_and(|k| v.equals(k)) {
            return false;
        }
        if f & ENUM != 0 && !n.enumeration.iter().any(|k| v.equals(k)) {
            return false;
        }
        let kind = v.kind();
        if kind == OBJECT && f & OBJECT_KEYWORDS != 0 {
            // One pass over the members: each is matched against the (few) declared
            // properties, counting the required ones met; the instance's keys are unique.
            let mut required_met = 0;
            let members_ok = v.all_members(|k, x| {
                let key = Key::of(k);
                match n
                    .properties
                    .iter()
                    .find(|p| p.key == key && key.names(k, &p.name))
                {
                    Some(p) => {
                        required_met += usize::from(p.required);
                        self.valid(p.schema, x, depth + 1)
                    }
                    None => f & ADDITIONAL == 0 || self.valid(n.additional, x, depth + 1),
                }
            });
            if !members_ok
                || required_met != n.required_declared
                || !n.required_other.iter().all(|r| v.member(r).is_some())
            {
                return false;
            }
        } else if kind == ARRAY && f & ITEMS != 0 {
            if !v.all_items(|x| self.valid(n.items, x, depth + 1)) {
                return false;
            }
        } else if kind == STRING && f & FORMAT != 0 {
            if let Some(fmt) = &n.format
                && !v.format_holds(fmt)
            {
                return false;
            }
        } else if kind == NUMBER && f & BOUNDS != 0 && !v.bounds_hold(&n.bounds) {
            return false;
        }
        if f & REF != 0 && !self.valid(n.reference, v, depth + 1) {
            return false;
        }
        if f & ALL_OF != 0 && !n.all_of.iter().all(|&s| self.valid(s, v, depth + 1)) {
            return false;
        }
        if f & ANY_OF != 0 {
            let ok = match &n.dispatch {
                // Every dispatched branch is `type: object`.
                Some(table) => match v.member("type").and_then(I::string) {
                    Some(t) if kind == OBJECT => table
                        .iter()
                        .filter(|(k, _)| **k == *t)
                        .any(|(_, s)| self.valid(*s, v, depth + 1)),
                    _ => false,
                },
                None => n.any_of.iter().any(|&s| self.valid(s, v, depth + 1)),
            };
            if !ok {
                return false;
            }
        }
        if f & CONDITION != 0
            && let Some((cond, then, otherwise)) = n.condition
        {
            let branch = if self.valid(cond, v, depth + 1) {
                then
            } else {
                otherwise
            };
            if let Some(b) = branch
                && !self.valid(b, v, depth + 1)
            {
                return false;
            }
        }
        true
    }

    /// A schema that reaches itself without descending into the instance (`A: {$ref: A}`)
    /// would loop; such a definition is left to the full validator.
    fn check_no_empty_loops(&self) -> Result<(), Unsupported> {
        fn visit(v: &FastValidator, id: u32, state: &mut [u8]) -> Result<(), Unsupported> {
            match state[id as usize] {
                1 => return Err(Unsupported("a $ref loop that does not descend".into())),
                2 => return Ok(()),
                _ => {}
            }
            state[id as usize] = 1;
            let n = &v.nodes[id as usize];
            let same_instance = (n.flags & REF != 0)
                .then_some(&n.reference)
                .into_iter()
                .chain(&n.all_of)
                .chain(&n.any_of)
                .copied()
                .chain(
                    n.condition
                        .iter()
                        .flat_map(|&(c, t, e)| std::iter::once(c).chain(t).chain(e)),
                );
            for s in same_instance {
                visit(v, s, state)?;
            }
            state[id as usize] = 2;
            Ok(())
        }
        let mut state = vec![0u8; self.nodes.len()];
        for id in 0..self.nodes.len() {
            visit(self, id as u32, &mut state)?;
        }
        Ok(())
    }
}

/// What the walk reads of an instance, for a `serde_json::Value` and for a value on a
/// [`tape`]: one walk, so both answer alike.
trait Instance<'v>: Copy {
    /// Its JSON type as one bit, `INTEGER` not told apart from `NUMBER`.
    fn kind(self) -> u8;
    /// Its type bits for `type`: a number that is an integer has both bits.
    fn type_bits(self) -> u8;
    /// JSON equality as the validator defines it (numbers compare by value).
    fn equals(self, k: &Value) -> bool;
    /// The string, when it is one.
    fn string(self) -> Option<&'v str>;
    /// Whether a string holds the format.
    fn format_holds(self, f: &Format) -> bool;
    /// Whether a number keeps within every bound.
    fn bounds_hold(self, bounds: &[CompiledBound]) -> bool;
    /// Whether `f` holds for every member of an object (stops at the first that fails).
    fn all_members(self, f: impl FnMut(&str, Self) -> bool) -> bool;
    /// Whether `f` holds for every item of an array.
    fn all_items(self, f: impl FnMut(Self) -> bool) -> bool;
    /// The member `name` of an object.
    fn member(self, name: &str) -> Option<Self>;
}

fn kind_of(v: &Value) -> u8 {
    match v {
        Value::Null => NULL,
        Value::Bool(_) => BOOLEAN,
        Value::Object(_) => OBJECT,
        Value::Array(_) => ARRAY,
        Value::String(_) => STRING,
        Value::Number(_) => NUMBER,
    }
}

impl<'v> Instance<'v> for &'v Value {
    fn kind(self) -> u8 {
        kind_of(self)
    }

    fn type_bits(self) -> u8 {
        match self {
            Value::Number(n) if jsonschema_value::types::number_is_integer(n) => NUMBER | INTEGER,
            v => kind_of(v),
        }
    }

    fn equals(self, k: &Value) -> bool {
        match (self, k) {
            (Value::String(a), Value::String(b)) => a == b,
            _ => jsonschema_value::cmp::equal(self, k),
        }
    }

    fn string(self) -> Option<&'v str> {
        self.as_str()
    }

    fn format_holds(self, f: &Format) -> bool {
        match (f, self) {
            (Format::Base64, Value::String(s)) => super::formats::is_base64(s),
            (Format::Other(fv), v) => fv.is_valid(v),
            _ => true,
        }
    }

    fn bounds_hold(self, bounds: &[CompiledBound]) -> bool {
        match self {
            Value::Number(x) => bounds.iter().all(|b| check_bound(b, x)),
            _ => true,
        }
    }

    fn all_members(self, mut f: impl FnMut(&str, Self) -> bool) -> bool {
        match self {
            Value::Object(m) => m.iter().all(|(k, x)| f(k, x)),
            _ => true,
        }
    }

    fn all_items(self, f: impl FnMut(Self) -> bool) -> bool {
        match self {
            Value::Array(items) => items.iter().all(f),
            _ => true,
        }
    }

    fn member(self, name: &str) -> Option<Self> {
        self.as_object()?.get(name)
    }
}

impl<'t> Instance<'t> for tape::Node<'t, '_> {
    fn kind(self) -> u8 {
        match self.tok() {
            Tok::Null => NULL,
            Tok::Bool(_) => BOOLEAN,
            Tok::Object { .. } => OBJECT,
            Tok::Array { .. } => ARRAY,
            Tok::String(_) => STRING,
            Tok::Number(_) => NUMBER,
        }
    }

    fn type_bits(self) -> u8 {
        match self.tok() {
            // Without an exponent a number is an integer when its fraction (if any) is all
            // zeros; any other number is decided as for a `Value`.
            Tok::Number(t) if !t.bytes().any(|b| b | 0x20 == b'e') => match t.split_once('.') {
                Some((_, f)) if f.bytes().any(|b| b != b'0') => NUMBER,
                _ => NUMBER | INTEGER,
            },
            Tok::Number(t) => match tape::number(t) {
                Some(n) if jsonschema_value::types::number_is_integer(&n) => NUMBER | INTEGER,
                _ => NUMBER,
            },
            _ => self.kind(),
        }
    }

    fn equals(self, k: &Value) -> bool {
        match (self.tok(), k) {
            (Tok::String(a), Value::String(b)) => **a == **b,
            (Tok::String(_), _) | (_, Value::String(_)) => false,
            _ => jsonschema_value::cmp::equal(&self.to_value(), k),
        }
    }

    fn string(self) -> Option<&'t str> {
        self.as_str()
    }

    fn format_holds(self, f: &Format) -> bool {
        match (f, self.as_str()) {
            (Format::Base64, Some(s)) => super::formats::is_base64(s),
            (Format::Other(fv), Some(s)) => fv.is_valid(&Value::String(s.to_owned())),
            _ => true,
        }
    }

    fn bounds_hold(self, bounds: &[CompiledBound]) -> bool {
        match self.number_text().map(tape::number) {
            Some(Some(x)) => bounds.iter().all(|b| check_bound(b, &x)),
            // Not read as `serde_json` would: not decided here.
            Some(None) => false,
            None => true,
        }
    }

    fn all_members(self, mut f: impl FnMut(&str, Self) -> bool) -> bool {
        self.members().all(|(k, x)| f(k, x))
    }

    fn all_items(self, f: impl FnMut(Self) -> bool) -> bool {
        self.items().all(f)
    }

    fn member(self, name: &str) -> Option<Self> {
        self.get(name)
    }
}

fn type_bit(name: &str) -> Result<u8, Unsupported> {
    Ok(match name {
        "null" => NULL,
        "boolean" => BOOLEAN,
        "object" => OBJECT,
        "array" => ARRAY,
        "number" => NUMBER,
        "string" => STRING,
        "integer" => INTEGER,
        other => return Err(Unsupported(format!("type {other:?}"))),
    })
}

impl<'s> Compiler<'s> {
    fn def(&mut self, name: &'s str) -> Result<u32, Unsupported> {
        if let Some(&id) = self.by_def.get(name) {
            return Ok(id);
        }
        let schema = self
            .defs
            .get(name)
            .ok_or_else(|| Unsupported(format!("no definition {name:?}")))?;
        let id = self.reserve();
        self.by_def.insert(name, id);
        self.fill(id, schema)?;
        Ok(id)
    }

    fn reserve(&mut self) -> u32 {
        self.nodes.push(Node::default());
        u32::try_from(self.nodes.len() - 1).expect("a schema of fewer than 2^32 nodes")
    }

    fn sub(&mut self, schema: &'s Value) -> Result<u32, Unsupported> {
        let id = self.reserve();
        self.fill(id, schema)?;
        Ok(id)
    }

    fn fill(&mut self, id: u32, schema: &'s Value) -> Result<(), Unsupported> {
        let mut n = Node::default();
        let obj = match schema {
            Value::Bool(b) => {
                n.flags = if *b { ALWAYS } else { NEVER };
                self.nodes[id as usize] = n;
                return Ok(());
            }
            Value::Object(o) => o,
            other => return Err(Unsupported(format!("schema {other}"))),
        };
        for (k, v) in obj {
            match k.as_str() {
                "description" | "title" | "$comment" | "default" | "examples" | "deprecated" => {}
                "type" => {
                    n.types = match v {
                        Value::String(t) => type_bit(t)?,
                        Value::Array(ts) if !ts.is_empty() => ts.iter().try_fold(0, |acc, t| {
                            Ok(acc
                                | type_bit(
                                    t.as_str()
                                        .ok_or_else(|| Unsupported(format!("type entry {t}")))?,
                                )?)
                        })?,
                        other => return Err(Unsupported(format!("type {other}"))),
                    }
                }
                "const" => n.konst = Some(v.clone()),
                "enum" => {
                    n.enumeration = v
                        .as_array()
                        .ok_or_else(|| Unsupported("enum is not an array".into()))?
                        .clone();
                    n.flags |= ENUM;
                }
                "properties" => {
                    let props = v
                        .as_object()
                        .ok_or_else(|| Unsupported("properties is not an object".into()))?;
                    for (name, s) in props {
                        let schema = self.sub(s)?;
                        n.properties.push(Prop {
                            key: Key::of(name),
                            name: name.as_str().into(),
                            schema,
                            required: false,
                        });
                    }
                }
                "required" => {
                    for r in v
                        .as_array()
                        .ok_or_else(|| Unsupported("required is not an array".into()))?
                    {
                        let r = r
                            .as_str()
                            .ok_or_else(|| Unsupported(format!("required entry {r}")))?;
                        if !n.required_other.iter().any(|o| &**o == r) {
                            n.required_other.push(r.into());
                        }
                    }
                }
                "additionalProperties" => {
                    n.additional = self.sub(v)?;
                    n.flags |= ADDITIONAL;
                }
                "items" => {
                    n.items = self.sub(v)?;
                    n.flags |= ITEMS;
                }
                "anyOf" | "allOf" => {
                    let list = v
                        .as_array()
                        .filter(|a| !a.is_empty())
                        .ok_or_else(|| Unsupported(format!("{k} is not a non-empty array")))?;
                    let ids = list
                        .iter()
                        .map(|s| self.sub(s))
                        .collect::<Result<Vec<_>, _>>()?;
                    if k == "anyOf" {
                        n.any_of = ids;
                    } else {
                        n.all_of = ids;
                    }
                }
                "if" => {
                    let cond = self.sub(v)?;
                    let then = obj.get("then").map(|s| self.sub(s)).transpose()?;
                    let otherwise = obj.get("else").map(|s| self.sub(s)).transpose()?;
                    n.condition = Some((cond, then, otherwise));
                }
                // Without `if` they do nothing (JSON Schema 2020-12, 10.2.2).
                "then" | "else" => {}
                "minimum" | "maximum" => {
                    let limit = v
                        .as_number()
                        .ok_or_else(|| Unsupported(format!("{k} is not a number")))?;
                    let op = if k == "minimum" {
                        BoundOp::Gte
                    } else {
                        BoundOp::Lte
                    };
                    n.bounds.push(compile_bound(op, limit));
                }
                "format" => {
                    let f = v
                        .as_str()
                        .ok_or_else(|| Unsupported("format is not a string".into()))?;
                    n.format =
                        Some(format_check(f).ok_or_else(|| Unsupported(format!("format {f:?}")))?);
                }
                "$ref" => {
                    let name = v
                        .as_str()
                        .and_then(|r| r.strip_prefix("#/$defs/"))
                        .filter(|d| !d.contains(['/', '~', '%']))
                        .ok_or_else(|| Unsupported(format!("$ref {v}")))?;
                    n.reference = self.def(name)?;
                    n.flags |= REF;
                }
                other => return Err(Unsupported(format!("keyword {other:?}"))),
            }
        }
        // Required names that are declared properties are counted in the members pass.
        let mut other = std::mem::take(&mut n.required_other);
        other.retain(|r| match n.properties.iter_mut().find(|p| p.name == *r) {
            Some(p) => {
                p.required = true;
                n.required_declared += 1;
                false
            }
            None => true,
        });
        n.required_other = other;
        let present = [
            (n.types != 0, TYPES),
            (n.konst.is_some(), CONST),
            (
                !n.properties.is_empty()
                    || !n.required_other.is_empty()
                    || n.flags & ADDITIONAL != 0,
                OBJECT_KEYWORDS,
            ),
            (n.format.is_some(), FORMAT),
            (!n.bounds.is_empty(), BOUNDS),
            (!n.all_of.is_empty(), ALL_OF),
            (!n.any_of.is_empty(), ANY_OF),
            (n.condition.is_some(), CONDITION),
        ];
        for (on, flag) in present {
            if on {
                n.flags |= flag;
            }
        }
        self.nodes[id as usize] = n;
        if !self.nodes[id as usize].any_of.is_empty() {
            let table = self.discriminate(&self.nodes[id as usize].any_of);
            self.nodes[id as usize].dispatch = table;
        }
        Ok(())
    }

    /// The `anyOf` dispatch table, when every branch (through plain `$ref`s) is an object
    /// schema requiring a `type` member whose schema is a string `const`.
    fn discriminate(&self, branches: &[u32]) -> Option<Vec<(Box<str>, u32)>> {
        branches
            .iter()
            .map(|&b| {
                let target = self.through_refs(b)?;
                let n = &self.nodes[target as usize];
                let t = n.properties.iter().find(|p| &*p.name == "type")?;
                if n.types != OBJECT || !t.required {
                    return None;
                }
                // Whatever else the member's schema says only rejects more: a valid branch
                // has this `type`, so a block of another `type` fails every other branch.
                match &self.nodes[t.schema as usize].konst {
                    Some(Value::String(s)) => Some((s.as_str().into(), b)),
                    _ => None,
                }
            })
            .collect()
    }

    /// Follows nodes that are nothing but a `$ref`; `None` for a node not filled yet (a
    /// definition still being compiled, reached through recursion).
    fn through_refs(&self, mut id: u32) -> Option<u32> {
        for _ in 0..64 {
            let n = &self.nodes[id as usize];
            if n.flags == REF {
                id = n.reference;
            } else {
                return (n.flags != 0).then_some(id);
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::Key;

    /// A name of at most eight bytes is matched by its key alone, so no two such names may
    /// share a key; a longer name's key is only a filter, its string still compared.
    #[test]
    fn a_short_name_is_told_apart_by_its_key_alone() {
        let names = [
            "", "a", "a\0", "\0a", "ab", "ba", "type", "typf", "text", "_meta", "isError",
            "mimeType", "mimeTypf", "uri", "é", "e\u{301}",
        ];
        for (i, a) in names.iter().enumerate() {
            for b in &names[i + 1..] {
                assert!(Key::of(a) != Key::of(b), "{a:?} and {b:?} share a key");
            }
            assert!(Key::of(a) == Key::of(a) && Key::of(a).names(a, a));
        }
        let (long, other) = ("resultType", "resultTypo");
        assert!(
            Key::of(long) == Key::of(other),
            "the same first eight bytes and length"
        );
        assert!(
            !Key::of(long).names(long, other),
            "a longer name is compared whole"
        );
    }
}
