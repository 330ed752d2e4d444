//! The names of the public option enums, written once: `Display`, `FromStr` and (with the `cli`
//! feature) `clap::ValueEnum` all read each enum's own `name()` / `label()`, so the command line,
//! a UI and a settings file spell an option the same way.
//!
//! Spellings: `name()` is the short lower-case name the CLI takes (`astar`, `allow-one`, `8`);
//! `label()` is the human label (`A*`, `cut one corner`, `8-connected`). `Display` prints the
//! label for [`Algorithm`](crate::Algorithm), [`Heuristic`](crate::Heuristic),
//! [`Moves`](crate::Moves), [`Corners`](crate::Corners) and [`FieldKind`](crate::FieldKind), and
//! the name for [`Generator`](crate::generate::Generator), which has no label; `FromStr` accepts
//! the name or the label, ignoring ASCII case.

/// A name that none of an enum's variants answers to (from a `FromStr` of [`Algorithm`],
/// [`Heuristic`], [`Moves`], [`Corners`], [`FieldKind`] or
/// [`Generator`](crate::generate::Generator)).
///
/// [`Algorithm`]: crate::Algorithm
/// [`Heuristic`]: crate::Heuristic
/// [`Moves`]: crate::Moves
/// [`Corners`]: crate::Corners
/// [`FieldKind`]: crate::FieldKind
///
/// ```
/// use gridpath::Algorithm;
/// let err = "astra".parse::<Algorithm>().unwrap_err();
/// assert!(err.to_string().starts_with("unknown algorithm \"astra\": use one of astar, dijkstra"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown {kind} {input:?}: use one of {}", accepted.join(", "))]
pub struct ParseNameError {
    /// What was being parsed: `"algorithm"`, `"heuristic"`, …
    pub kind: &'static str,
    /// The text that matched no name.
    pub input: String,
    /// The accepted names (the CLI names; labels are accepted too).
    pub accepted: Vec<&'static str>,
}

/// The variant of `all` whose name, label or one of its `aliases` equals `input` (ASCII case
/// ignored).
pub(crate) fn parse<T: Copy>(
    kind: &'static str,
    input: &str,
    all: &[T],
    spellings: impl Fn(T) -> (&'static str, &'static str),
    aliases: impl Fn(T) -> &'static [&'static str],
) -> Result<T, ParseNameError> {
    let input = input.trim();
    all.iter()
        .copied()
        .find(|&v| {
            let (name, label) = spellings(v);
            name.eq_ignore_ascii_case(input)
                || label.eq_ignore_ascii_case(input)
                || aliases(v).iter().any(|a| a.eq_ignore_ascii_case(input))
        })
        .ok_or_else(|| ParseNameError {
            kind,
            input: input.to_owned(),
            accepted: all.iter().map(|&v| spellings(v).0).collect(),
        })
}

/// `Display`, `FromStr` and (with `cli`) `clap::ValueEnum` for a fieldless enum with
/// `ALL`, `name()` and `label()`; `$display` picks which of the two `Display` prints. An
/// optional fourth argument, a function from a variant to its other accepted spellings
/// (`&'static [&'static str]`), adds aliases that parse but are not listed.
macro_rules! named_enum {
    ($ty:ty, $kind:literal, $display:ident) => {
        $crate::names::named_enum!($ty, $kind, $display, |_: $ty| -> &'static [&'static str] { &[] });
    };
    ($ty:ty, $kind:literal, $display:ident, $aliases:expr) => {
        impl ::std::fmt::Display for $ty {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.$display())
            }
        }

        impl ::std::str::FromStr for $ty {
            type Err = $crate::names::ParseNameError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $crate::names::parse($kind, s, &<$ty>::ALL, |v| (v.name(), v.label()), $aliases)
            }
        }

        #[cfg(feature = "cli")]
        impl ::clap::ValueEnum for $ty {
            fn value_variants<'a>() -> &'a [Self] {
                &<$ty>::ALL
            }

            fn to_possible_value(&self) -> Option<::clap::builder::PossibleValue> {
                let aliases: fn($ty) -> &'static [&'static str] = $aliases;
                Some(::clap::builder::PossibleValue::new(self.name()).aliases(aliases(*self)))
            }
        }
    };
}

pub(crate) use named_enum;

#[cfg(test)]
mod tests {
    use crate::generate::Generator;
    use crate::{Algorithm, Corners, FieldKind, Heuristic, Moves};
    use std::fmt::Debug;
    use std::str::FromStr;

    /// Every variant parses back from its name, its label, and their upper-case forms.
    fn round_trips<T: Copy + PartialEq + Debug + FromStr<Err = super::ParseNameError>>(
        all: &[T],
        spellings: impl Fn(T) -> (&'static str, &'static str),
    ) {
        for &v in all {
            let (name, label) = spellings(v);
            for s in [name.to_owned(), label.to_owned(), name.to_uppercase(), label.to_uppercase()] {
                assert_eq!(s.parse::<T>(), Ok(v), "{s:?} must parse back to {v:?}");
            }
        }
        let err = "no-such-name".parse::<T>().unwrap_err();
        for &v in all {
            assert!(err.accepted.contains(&spellings(v).0), "the error lists {:?}", spellings(v).0);
        }
    }

    #[test]
    fn every_name_and_label_round_trips() {
        round_trips(&Algorithm::ALL, |v| (v.name(), v.label()));
        round_trips(&Heuristic::ALL, |v| (v.name(), v.label()));
        round_trips(&Moves::ALL, |v| (v.name(), v.label()));
        round_trips(&Corners::ALL, |v| (v.name(), v.label()));
        round_trips(&FieldKind::ALL, |v| (v.name(), v.label()));
        for g in Generator::ALL {
            assert_eq!(g.name().parse::<Generator>(), Ok(g), "{g:?}");
            assert_eq!(g.to_string().parse::<Generator>(), Ok(g), "{g:?}");
        }
        assert_eq!("A*".parse::<Algorithm>(), Ok(Algorithm::AStar), "the label parses");
        assert_eq!(Algorithm::AStar.to_string(), "A*", "Display is the label");
        assert_eq!(Heuristic::Octile.to_string(), "Octile", "Display is the label");
        assert_eq!(Generator::Rooms.to_string(), "rooms", "a generator displays its name");
        assert_eq!(Corners::AllowOne.name(), "allow-one", "the CLI's spelling");
        assert_eq!(Moves::Four.name(), "4", "the CLI's spelling");
        assert_eq!(
            "maze".parse::<Generator>(),
            Ok(Generator::Maze { corridor: Generator::DEFAULT_CORRIDOR }),
            "a generator parses with its default parameters"
        );
    }

    #[cfg(feature = "cli")]
    #[test]
    fn clap_takes_the_same_names() {
        use clap::ValueEnum;
        for a in Algorithm::ALL {
            assert_eq!(<Algorithm as ValueEnum>::from_str(a.name(), false), Ok(a), "{a:?}");
        }
        for c in Corners::ALL {
            assert_eq!(<Corners as ValueEnum>::from_str(c.name(), false), Ok(c), "{c:?}");
        }
        assert_eq!(<Moves as ValueEnum>::from_str("8", false), Ok(Moves::Eight));
        assert_eq!(<Algorithm as ValueEnum>::from_str("lazy-theta", false), Ok(Algorithm::LazyTheta));
        assert_eq!("lazy-theta".parse::<Algorithm>(), Ok(Algorithm::LazyTheta), "the alias parses");
    }
}
