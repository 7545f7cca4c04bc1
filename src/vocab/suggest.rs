//! "Did you mean": the closest of a set of names to one that matched none of them, by edit
//! distance (`strsim`'s Levenshtein distance, the one clap uses for its own suggestions).

/// The candidate closest to `word`, when it is close enough to be a likely typo: at most a
/// third of the word's length away (at least 1, at most 4 edits). Ties keep the first.
pub fn closest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (word.chars().count() / 3).clamp(1, 4);
    let mut best: Option<(usize, &'a str)> = None;
    for c in candidates {
        let d = strsim::levenshtein(word, c);
        if d <= limit && best.is_none_or(|(b, _)| d < b) {
            best = Some((d, c));
        }
    }
    best.map(|(_, c)| c)
}

/// ` (did you mean `NAME`?)` for the closest candidate, or nothing.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    closest(word, candidates).map_or_else(String::new, |c| format!(" (did you mean `{c}`?)"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_typo_finds_its_word_and_a_stranger_finds_none() {
        let names = ["sse_close_early", "sse_reset", "baseline"];
        assert_eq!(closest("sse_close_eraly", names), Some("sse_close_early"));
        assert_eq!(closest("baselin", names), Some("baseline"));
        assert_eq!(closest("nothing-like-it", names), None);
        assert_eq!(
            did_you_mean("sse_rest", names),
            " (did you mean `sse_reset`?)"
        );
        assert_eq!(did_you_mean("zzz", names), "");
    }
}
