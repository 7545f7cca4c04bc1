//! The check API: what a check sees ([`Cx`]: the analysed exchange under one revision), what
//! it says ([`Eval`]: not applicable, pass, or trigger with hits), what it needs to apply at
//! all ([`Needs`]) and how it is declared ([`CheckDef`]). Checks only observe; the rule table
//! decides what a trigger means.

mod cx;

pub use cx::{Cx, ResultKind, SchemaSlot, Setting};

use crate::rules::CheckSig;
pub use crate::rules::{Params, Target};

/// A check's verdict on one exchange.
#[derive(Debug, Clone, PartialEq)]
pub enum Eval {
    /// The check's precondition does not hold (e.g. no result to inspect).
    NotApplicable,
    /// Looked, and the condition is absent (for a requirement: satisfied).
    Pass,
    /// The condition is present (for a requirement: violated), with where and why.
    Trigger(Vec<Hit>),
    /// The condition is present, at more places than the judgement keeps findings for (see
    /// [`Cx::hits`]): the first hits, and how many more were counted without being described.
    TriggerMore(Vec<Hit>, usize),
}

impl Eval {
    /// A trigger with one hit.
    pub fn hit(pointer: impl Into<String>, message: impl Into<String>) -> Eval {
        Eval::Trigger(vec![Hit::new(pointer, message)])
    }

    /// A trigger that needs no detail (classification rules).
    pub fn triggered() -> Eval {
        Eval::Trigger(Vec::new())
    }

    /// `Pass` when `hits` is empty, else `Trigger(hits)`.
    pub fn from_hits(hits: Vec<Hit>) -> Eval {
        if hits.is_empty() {
            Eval::Pass
        } else {
            Eval::Trigger(hits)
        }
    }
}

/// A check's hits, collected under the judgement's cap on findings per rule: past the cap a
/// hit is counted, not described, so that a check triggering at every one of 400,000 events
/// does not hold 400,000 messages only for all but a few to be left out of the verdict.
#[derive(Debug)]
pub struct Hits {
    hits: Vec<Hit>,
    /// At most this many hits are described (0: all).
    cap: usize,
    more: usize,
}

impl Hits {
    /// Hits kept to at most `cap` (0: all).
    pub fn capped(cap: usize) -> Hits {
        Hits {
            hits: Vec::new(),
            cap,
            more: 0,
        }
    }

    /// Adds a hit, described by `hit` while under the cap, else only counted.
    pub fn push(&mut self, hit: impl FnOnce() -> Hit) {
        if self.cap == 0 || self.hits.len() < self.cap {
            self.hits.push(hit());
        } else {
            self.more += 1;
        }
    }

    /// `Pass` without hits, else the trigger.
    pub fn into_eval(self) -> Eval {
        match (self.hits.is_empty(), self.more) {
            (true, 0) => Eval::Pass,
            (false, 0) => Eval::Trigger(self.hits),
            (_, more) => Eval::TriggerMore(self.hits, more),
        }
    }
}

/// Where and why a check triggered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// JSON Pointer into the JSON-RPC message (empty: the exchange as a whole).
    pub pointer: String,
    /// What was found, for people.
    pub message: String,
    /// The SSE event the hit is in, when the body is a stream.
    pub event: Option<usize>,
}

impl Hit {
    /// A hit in the response message.
    pub fn new(pointer: impl Into<String>, message: impl Into<String>) -> Hit {
        Hit {
            pointer: pointer.into(),
            message: message.into(),
            event: None,
        }
    }

    /// A hit in a given SSE event.
    pub fn in_event(event: usize, pointer: impl Into<String>, message: impl Into<String>) -> Hit {
        Hit {
            pointer: pointer.into(),
            message: message.into(),
            event: Some(event),
        }
    }
}

/// Parts of an exchange a check can depend on (a small bit set), the transport binding it was
/// recorded over among them: a check of one binding's framing needs that binding, and is not
/// applicable over the other.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Needs(u16);

impl Needs {
    /// Nothing: the check always runs.
    pub const NONE: Needs = Needs(0);
    /// A recorded request.
    pub const REQUEST: Needs = Needs(1);
    /// A JSON-RPC response message.
    pub const MESSAGE: Needs = Needs(1 << 1);
    /// An `error` member.
    pub const ERROR: Needs = Needs(1 << 2);
    /// A `result` member (without `error`).
    pub const RESULT: Needs = Needs(1 << 3);
    /// An `input_required` result.
    pub const INPUT_REQUIRED: Needs = Needs(1 << 4);
    /// An SSE body.
    pub const STREAM: Needs = Needs(1 << 5);
    /// A request that is a notification.
    pub const NOTIFICATION: Needs = Needs(1 << 6);
    /// An exchange over HTTP (a status, headers, a body).
    pub const HTTP: Needs = Needs(1 << 7);
    /// An exchange over stdio (lines the server wrote).
    pub const STDIO: Needs = Needs(1 << 8);
    /// An answer with a `WWW-Authenticate` field (an authorization challenge, readable or not).
    pub const CHALLENGE: Needs = Needs(1 << 9);
    /// An exchange that records the client's authorization (`auth`: discovery documents, the
    /// token it held).
    pub const AUTH_RECORD: Needs = Needs(1 << 10);
    /// The transport bindings and their framings (an SSE body within HTTP): a check of one is
    /// never run over another, and may then judge what another framing's check judges alike.
    /// Read only by the debug builds' check that a skipped step could not apply.
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub const FRAMINGS: Needs = Needs(Self::HTTP.0 | Self::STDIO.0 | Self::STREAM.0);

    /// Both sets.
    pub const fn union(self, other: Needs) -> Needs {
        Needs(self.0 | other.0)
    }

    /// The raw bits (below 2048).
    pub const fn bits(self) -> u16 {
        self.0
    }

    /// The parts in both sets (read only by the debug builds' check, as [`Needs::FRAMINGS`]).
    #[cfg_attr(not(debug_assertions), allow(dead_code))]
    pub const fn intersection(self, other: Needs) -> Needs {
        Needs(self.0 & other.0)
    }

    /// How many sets of parts there are (the index of a set is its bits).
    pub const SETS: usize = Self::ALL.0 as usize + 1;

    /// Every part.
    const ALL: Needs = Needs(0x7ff);

    /// Whether every part in `self` is present in `have`.
    pub const fn met_by(self, have: Needs) -> bool {
        self.0 & !have.0 == 0
    }
}

/// A named check.
#[derive(Debug)]
pub struct CheckDef {
    /// Its name and parameters, as the rule table sees them.
    pub sig: CheckSig,
    /// What it looks for.
    pub doc: &'static str,
    /// What the exchange must have for the check to apply at all; without it the engine
    /// records the rule as not applicable without running the check (a fast path: the check
    /// would say the same).
    pub needs: Needs,
    /// The check itself.
    pub run: fn(&Cx<'_>, &Params) -> Eval,
}

/// What the exchange must have for a schema target to exist.
pub fn target_needs(target: Target) -> Needs {
    match target {
        Target::CompleteResult
        | Target::ListToolsResult
        | Target::DiscoverResult
        | Target::InitializeResult
        | Target::TaskResult => Needs::RESULT,
        Target::InputRequiredResult => Needs::INPUT_REQUIRED,
        Target::Error | Target::ErrorResponse => Needs::ERROR,
        Target::Response => Needs::MESSAGE,
    }
}

/// Declares the checks of a module: `name => function, [accepted params], [required params],
/// NEEDS, "what it looks for";`, where NEEDS names parts of [`Needs`] joined by `|` (e.g.
/// `HTTP | REQUEST`).
macro_rules! declare_checks {
    ($( $name:literal => $f:path, [$($p:literal),*], [$($r:literal),*], $($needs:ident)|+, $doc:literal; )*) => {
        /// The checks this module implements.
        pub(crate) static CHECKS: &[$crate::check_api::CheckDef] = &[
            $( $crate::check_api::CheckDef {
                sig: $crate::rules::CheckSig { name: $name, params: &[$($p),*], required: &[$($r),*] },
                doc: $doc,
                needs: $crate::check_api::Needs::NONE$(.union($crate::check_api::Needs::$needs))+,
                run: $f,
            } ),*
        ];
    };
}
pub(crate) use declare_checks;
