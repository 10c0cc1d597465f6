//! Names a model gets almost right: a missing name that differs from an existing one only by invisible or
//! look-alike characters (a no-break space for a space, NFD against NFC, a Cyrillic `а` for a Latin `a`, a
//! zero-width space), and a path that starts with `~`, which the sandbox does not expand. Both only shape the
//! message of a `not_found` error: no other file is ever opened in place of the one asked for.

/// A character a model may type for another: (the character, its Unicode name, what it looks like).
const LOOK_ALIKES: &[(char, &str, char)] = &[
    ('\u{0009}', "CHARACTER TABULATION (a tab)", ' '),
    ('\u{00A0}', "NO-BREAK SPACE", ' '),
    ('\u{2007}', "FIGURE SPACE", ' '),
    ('\u{202F}', "NARROW NO-BREAK SPACE", ' '),
    ('\u{2002}', "EN SPACE", ' '),
    ('\u{2003}', "EM SPACE", ' '),
    ('\u{2009}', "THIN SPACE", ' '),
    ('\u{3000}', "IDEOGRAPHIC SPACE", ' '),
    ('\u{2010}', "HYPHEN", '-'),
    ('\u{2011}', "NON-BREAKING HYPHEN", '-'),
    ('\u{2013}', "EN DASH", '-'),
    ('\u{2014}', "EM DASH", '-'),
    ('\u{2212}', "MINUS SIGN", '-'),
    ('\u{2018}', "LEFT SINGLE QUOTATION MARK", '\''),
    ('\u{2019}', "RIGHT SINGLE QUOTATION MARK", '\''),
    ('\u{201C}', "LEFT DOUBLE QUOTATION MARK", '"'),
    ('\u{201D}', "RIGHT DOUBLE QUOTATION MARK", '"'),
    ('\u{2024}', "ONE DOT LEADER", '.'),
    ('\u{0430}', "CYRILLIC SMALL LETTER A", 'a'),
    ('\u{0435}', "CYRILLIC SMALL LETTER IE", 'e'),
    ('\u{043E}', "CYRILLIC SMALL LETTER O", 'o'),
    ('\u{0440}', "CYRILLIC SMALL LETTER ER", 'p'),
    ('\u{0441}', "CYRILLIC SMALL LETTER ES", 'c'),
    ('\u{0443}', "CYRILLIC SMALL LETTER U", 'y'),
    ('\u{0445}', "CYRILLIC SMALL LETTER HA", 'x'),
    (
        '\u{0456}',
        "CYRILLIC SMALL LETTER BYELORUSSIAN-UKRAINIAN I",
        'i',
    ),
    ('\u{0458}', "CYRILLIC SMALL LETTER JE", 'j'),
    ('\u{0455}', "CYRILLIC SMALL LETTER DZE", 's'),
    ('\u{0410}', "CYRILLIC CAPITAL LETTER A", 'A'),
    ('\u{0412}', "CYRILLIC CAPITAL LETTER VE", 'B'),
    ('\u{0415}', "CYRILLIC CAPITAL LETTER IE", 'E'),
    ('\u{041A}', "CYRILLIC CAPITAL LETTER KA", 'K'),
    ('\u{041C}', "CYRILLIC CAPITAL LETTER EM", 'M'),
    ('\u{041D}', "CYRILLIC CAPITAL LETTER EN", 'H'),
    ('\u{041E}', "CYRILLIC CAPITAL LETTER O", 'O'),
    ('\u{0420}', "CYRILLIC CAPITAL LETTER ER", 'P'),
    ('\u{0421}', "CYRILLIC CAPITAL LETTER ES", 'C'),
    ('\u{0422}', "CYRILLIC CAPITAL LETTER TE", 'T'),
    ('\u{0425}', "CYRILLIC CAPITAL LETTER HA", 'X'),
    ('\u{03BF}', "GREEK SMALL LETTER OMICRON", 'o'),
    ('\u{039F}', "GREEK CAPITAL LETTER OMICRON", 'O'),
    ('\u{0391}', "GREEK CAPITAL LETTER ALPHA", 'A'),
    ('\u{0392}', "GREEK CAPITAL LETTER BETA", 'B'),
    ('\u{0395}', "GREEK CAPITAL LETTER EPSILON", 'E'),
    ('\u{0397}', "GREEK CAPITAL LETTER ETA", 'H'),
    ('\u{0399}', "GREEK CAPITAL LETTER IOTA", 'I'),
    ('\u{039A}', "GREEK CAPITAL LETTER KAPPA", 'K'),
    ('\u{039C}', "GREEK CAPITAL LETTER MU", 'M'),
    ('\u{039D}', "GREEK CAPITAL LETTER NU", 'N'),
    ('\u{03A1}', "GREEK CAPITAL LETTER RHO", 'P'),
    ('\u{03A4}', "GREEK CAPITAL LETTER TAU", 'T'),
    ('\u{03A7}', "GREEK CAPITAL LETTER CHI", 'X'),
];

/// Characters that show as nothing: (the character, its Unicode name).
const INVISIBLE: &[(char, &str)] = &[
    ('\u{200B}', "ZERO WIDTH SPACE"),
    ('\u{200C}', "ZERO WIDTH NON-JOINER"),
    ('\u{200D}', "ZERO WIDTH JOINER"),
    ('\u{2060}', "WORD JOINER"),
    ('\u{FEFF}', "ZERO WIDTH NO-BREAK SPACE"),
    ('\u{00AD}', "SOFT HYPHEN"),
    ('\u{200E}', "LEFT-TO-RIGHT MARK"),
    ('\u{200F}', "RIGHT-TO-LEFT MARK"),
    ('\u{061C}', "ARABIC LETTER MARK"),
    ('\u{202A}', "LEFT-TO-RIGHT EMBEDDING"),
    ('\u{202B}', "RIGHT-TO-LEFT EMBEDDING"),
    ('\u{202C}', "POP DIRECTIONAL FORMATTING"),
    ('\u{202D}', "LEFT-TO-RIGHT OVERRIDE"),
    ('\u{202E}', "RIGHT-TO-LEFT OVERRIDE"),
    ('\u{2066}', "LEFT-TO-RIGHT ISOLATE"),
    ('\u{2067}', "RIGHT-TO-LEFT ISOLATE"),
    ('\u{2068}', "FIRST STRONG ISOLATE"),
    ('\u{2069}', "POP DIRECTIONAL ISOLATE"),
];

/// Ligatures a name may hold where a model types their letters: (the ligature, its Unicode name, its letters).
const LIGATURES: &[(char, &str, &str)] = &[
    ('\u{FB00}', "LATIN SMALL LIGATURE FF", "ff"),
    ('\u{FB01}', "LATIN SMALL LIGATURE FI", "fi"),
    ('\u{FB02}', "LATIN SMALL LIGATURE FL", "fl"),
    ('\u{FB03}', "LATIN SMALL LIGATURE FFI", "ffi"),
    ('\u{FB04}', "LATIN SMALL LIGATURE FFL", "ffl"),
    ('\u{FB05}', "LATIN SMALL LIGATURE LONG S T", "st"),
    ('\u{FB06}', "LATIN SMALL LIGATURE ST", "st"),
];

/// Whitespace at the start or end of a name: (the character, how it is named).
const EDGE_WHITESPACE: &[(char, &str)] = &[
    (' ', "space"),
    ('\t', "tab (U+0009)"),
    ('\n', "newline (U+000A LINE FEED)"),
    ('\r', "carriage return (U+000D)"),
    ('\u{00A0}', "no-break space (U+00A0)"),
];

/// Canonical decompositions (NFD) of the precomposed letters of the Latin, Greek and Cyrillic blocks, ascending:
/// enough to tell a name macOS wrote decomposed from the same name typed composed, without a normalization crate
/// (whose tables would add about 150 KB to the component). Generated from Python's `unicodedata`.
const DECOMPOSITIONS: &[(char, &str)] = &[
    ('\u{C0}', "A\u{300}"),
    ('\u{C1}', "A\u{301}"),
    ('\u{C2}', "A\u{302}"),
    ('\u{C3}', "A\u{303}"),
    ('\u{C4}', "A\u{308}"),
    ('\u{C5}', "A\u{30A}"),
    ('\u{C7}', "C\u{327}"),
    ('\u{C8}', "E\u{300}"),
    ('\u{C9}', "E\u{301}"),
    ('\u{CA}', "E\u{302}"),
    ('\u{CB}', "E\u{308}"),
    ('\u{CC}', "I\u{300}"),
    ('\u{CD}', "I\u{301}"),
    ('\u{CE}', "I\u{302}"),
    ('\u{CF}', "I\u{308}"),
    ('\u{D1}', "N\u{303}"),
    ('\u{D2}', "O\u{300}"),
    ('\u{D3}', "O\u{301}"),
    ('\u{D4}', "O\u{302}"),
    ('\u{D5}', "O\u{303}"),
    ('\u{D6}', "O\u{308}"),
    ('\u{D9}', "U\u{300}"),
    ('\u{DA}', "U\u{301}"),
    ('\u{DB}', "U\u{302}"),
    ('\u{DC}', "U\u{308}"),
    ('\u{DD}', "Y\u{301}"),
    ('\u{E0}', "a\u{300}"),
    ('\u{E1}', "a\u{301}"),
    ('\u{E2}', "a\u{302}"),
    ('\u{E3}', "a\u{303}"),
    ('\u{E4}', "a\u{308}"),
    ('\u{E5}', "a\u{30A}"),
    ('\u{E7}', "c\u{327}"),
    ('\u{E8}', "e\u{300}"),
    ('\u{E9}', "e\u{301}"),
    ('\u{EA}', "e\u{302}"),
    ('\u{EB}', "e\u{308}"),
    ('\u{EC}', "i\u{300}"),
    ('\u{ED}', "i\u{301}"),
    ('\u{EE}', "i\u{302}"),
    ('\u{EF}', "i\u{308}"),
    ('\u{F1}', "n\u{303}"),
    ('\u{F2}', "o\u{300}"),
    ('\u{F3}', "o\u{301}"),
    ('\u{F4}', "o\u{302}"),
    ('\u{F5}', "o\u{303}"),
    ('\u{F6}', "o\u{308}"),
    ('\u{F9}', "u\u{300}"),
    ('\u{FA}', "u\u{301}"),
    ('\u{FB}', "u\u{302}"),
    ('\u{FC}', "u\u{308}"),
    ('\u{FD}', "y\u{301}"),
    ('\u{FF}', "y\u{308}"),
    ('\u{100}', "A\u{304}"),
    ('\u{101}', "a\u{304}"),
    ('\u{102}', "A\u{306}"),
    ('\u{103}', "a\u{306}"),
    ('\u{104}', "A\u{328}"),
    ('\u{105}', "a\u{328}"),
    ('\u{106}', "C\u{301}"),
    ('\u{107}', "c\u{301}"),
    ('\u{108}', "C\u{302}"),
    ('\u{109}', "c\u{302}"),
    ('\u{10A}', "C\u{307}"),
    ('\u{10B}', "c\u{307}"),
    ('\u{10C}', "C\u{30C}"),
    ('\u{10D}', "c\u{30C}"),
    ('\u{10E}', "D\u{30C}"),
    ('\u{10F}', "d\u{30C}"),
    ('\u{112}', "E\u{304}"),
    ('\u{113}', "e\u{304}"),
    ('\u{114}', "E\u{306}"),
    ('\u{115}', "e\u{306}"),
    ('\u{116}', "E\u{307}"),
    ('\u{117}', "e\u{307}"),
    ('\u{118}', "E\u{328}"),
    ('\u{119}', "e\u{328}"),
    ('\u{11A}', "E\u{30C}"),
    ('\u{11B}', "e\u{30C}"),
    ('\u{11C}', "G\u{302}"),
    ('\u{11D}', "g\u{302}"),
    ('\u{11E}', "G\u{306}"),
    ('\u{11F}', "g\u{306}"),
    ('\u{120}', "G\u{307}"),
    ('\u{121}', "g\u{307}"),
    ('\u{122}', "G\u{327}"),
    ('\u{123}', "g\u{327}"),
    ('\u{124}', "H\u{302}"),
    ('\u{125}', "h\u{302}"),
    ('\u{128}', "I\u{303}"),
    ('\u{129}', "i\u{303}"),
    ('\u{12A}', "I\u{304}"),
    ('\u{12B}', "i\u{304}"),
    ('\u{12C}', "I\u{306}"),
    ('\u{12D}', "i\u{306}"),
    ('\u{12E}', "I\u{328}"),
    ('\u{12F}', "i\u{328}"),
    ('\u{130}', "I\u{307}"),
    ('\u{134}', "J\u{302}"),
    ('\u{135}', "j\u{302}"),
    ('\u{136}', "K\u{327}"),
    ('\u{137}', "k\u{327}"),
    ('\u{139}', "L\u{301}"),
    ('\u{13A}', "l\u{301}"),
    ('\u{13B}', "L\u{327}"),
    ('\u{13C}', "l\u{327}"),
    ('\u{13D}', "L\u{30C}"),
    ('\u{13E}', "l\u{30C}"),
    ('\u{143}', "N\u{301}"),
    ('\u{144}', "n\u{301}"),
    ('\u{145}', "N\u{327}"),
    ('\u{146}', "n\u{327}"),
    ('\u{147}', "N\u{30C}"),
    ('\u{148}', "n\u{30C}"),
    ('\u{14C}', "O\u{304}"),
    ('\u{14D}', "o\u{304}"),
    ('\u{14E}', "O\u{306}"),
    ('\u{14F}', "o\u{306}"),
    ('\u{150}', "O\u{30B}"),
    ('\u{151}', "o\u{30B}"),
    ('\u{154}', "R\u{301}"),
    ('\u{155}', "r\u{301}"),
    ('\u{156}', "R\u{327}"),
    ('\u{157}', "r\u{327}"),
    ('\u{158}', "R\u{30C}"),
    ('\u{159}', "r\u{30C}"),
    ('\u{15A}', "S\u{301}"),
    ('\u{15B}', "s\u{301}"),
    ('\u{15C}', "S\u{302}"),
    ('\u{15D}', "s\u{302}"),
    ('\u{15E}', "S\u{327}"),
    ('\u{15F}', "s\u{327}"),
    ('\u{160}', "S\u{30C}"),
    ('\u{161}', "s\u{30C}"),
    ('\u{162}', "T\u{327}"),
    ('\u{163}', "t\u{327}"),
    ('\u{164}', "T\u{30C}"),
    ('\u{165}', "t\u{30C}"),
    ('\u{168}', "U\u{303}"),
    ('\u{169}', "u\u{303}"),
    ('\u{16A}', "U\u{304}"),
    ('\u{16B}', "u\u{304}"),
    ('\u{16C}', "U\u{306}"),
    ('\u{16D}', "u\u{306}"),
    ('\u{16E}', "U\u{30A}"),
    ('\u{16F}', "u\u{30A}"),
    ('\u{170}', "U\u{30B}"),
    ('\u{171}', "u\u{30B}"),
    ('\u{172}', "U\u{328}"),
    ('\u{173}', "u\u{328}"),
    ('\u{174}', "W\u{302}"),
    ('\u{175}', "w\u{302}"),
    ('\u{176}', "Y\u{302}"),
    ('\u{177}', "y\u{302}"),
    ('\u{178}', "Y\u{308}"),
    ('\u{179}', "Z\u{301}"),
    ('\u{17A}', "z\u{301}"),
    ('\u{17B}', "Z\u{307}"),
    ('\u{17C}', "z\u{307}"),
    ('\u{17D}', "Z\u{30C}"),
    ('\u{17E}', "z\u{30C}"),
    ('\u{1A0}', "O\u{31B}"),
    ('\u{1A1}', "o\u{31B}"),
    ('\u{1AF}', "U\u{31B}"),
    ('\u{1B0}', "u\u{31B}"),
    ('\u{1CD}', "A\u{30C}"),
    ('\u{1CE}', "a\u{30C}"),
    ('\u{1CF}', "I\u{30C}"),
    ('\u{1D0}', "i\u{30C}"),
    ('\u{1D1}', "O\u{30C}"),
    ('\u{1D2}', "o\u{30C}"),
    ('\u{1D3}', "U\u{30C}"),
    ('\u{1D4}', "u\u{30C}"),
    ('\u{1D5}', "U\u{308}\u{304}"),
    ('\u{1D6}', "u\u{308}\u{304}"),
    ('\u{1D7}', "U\u{308}\u{301}"),
    ('\u{1D8}', "u\u{308}\u{301}"),
    ('\u{1D9}', "U\u{308}\u{30C}"),
    ('\u{1DA}', "u\u{308}\u{30C}"),
    ('\u{1DB}', "U\u{308}\u{300}"),
    ('\u{1DC}', "u\u{308}\u{300}"),
    ('\u{1DE}', "A\u{308}\u{304}"),
    ('\u{1DF}', "a\u{308}\u{304}"),
    ('\u{1E0}', "A\u{307}\u{304}"),
    ('\u{1E1}', "a\u{307}\u{304}"),
    ('\u{1E2}', "\u{C6}\u{304}"),
    ('\u{1E3}', "\u{E6}\u{304}"),
    ('\u{1E6}', "G\u{30C}"),
    ('\u{1E7}', "g\u{30C}"),
    ('\u{1E8}', "K\u{30C}"),
    ('\u{1E9}', "k\u{30C}"),
    ('\u{1EA}', "O\u{328}"),
    ('\u{1EB}', "o\u{328}"),
    ('\u{1EC}', "O\u{328}\u{304}"),
    ('\u{1ED}', "o\u{328}\u{304}"),
    ('\u{1EE}', "\u{1B7}\u{30C}"),
    ('\u{1EF}', "\u{292}\u{30C}"),
    ('\u{1F0}', "j\u{30C}"),
    ('\u{1F4}', "G\u{301}"),
    ('\u{1F5}', "g\u{301}"),
    ('\u{1F8}', "N\u{300}"),
    ('\u{1F9}', "n\u{300}"),
    ('\u{1FA}', "A\u{30A}\u{301}"),
    ('\u{1FB}', "a\u{30A}\u{301}"),
    ('\u{1FC}', "\u{C6}\u{301}"),
    ('\u{1FD}', "\u{E6}\u{301}"),
    ('\u{1FE}', "\u{D8}\u{301}"),
    ('\u{1FF}', "\u{F8}\u{301}"),
    ('\u{200}', "A\u{30F}"),
    ('\u{201}', "a\u{30F}"),
    ('\u{202}', "A\u{311}"),
    ('\u{203}', "a\u{311}"),
    ('\u{204}', "E\u{30F}"),
    ('\u{205}', "e\u{30F}"),
    ('\u{206}', "E\u{311}"),
    ('\u{207}', "e\u{311}"),
    ('\u{208}', "I\u{30F}"),
    ('\u{209}', "i\u{30F}"),
    ('\u{20A}', "I\u{311}"),
    ('\u{20B}', "i\u{311}"),
    ('\u{20C}', "O\u{30F}"),
    ('\u{20D}', "o\u{30F}"),
    ('\u{20E}', "O\u{311}"),
    ('\u{20F}', "o\u{311}"),
    ('\u{210}', "R\u{30F}"),
    ('\u{211}', "r\u{30F}"),
    ('\u{212}', "R\u{311}"),
    ('\u{213}', "r\u{311}"),
    ('\u{214}', "U\u{30F}"),
    ('\u{215}', "u\u{30F}"),
    ('\u{216}', "U\u{311}"),
    ('\u{217}', "u\u{311}"),
    ('\u{218}', "S\u{326}"),
    ('\u{219}', "s\u{326}"),
    ('\u{21A}', "T\u{326}"),
    ('\u{21B}', "t\u{326}"),
    ('\u{21E}', "H\u{30C}"),
    ('\u{21F}', "h\u{30C}"),
    ('\u{226}', "A\u{307}"),
    ('\u{227}', "a\u{307}"),
    ('\u{228}', "E\u{327}"),
    ('\u{229}', "e\u{327}"),
    ('\u{22A}', "O\u{308}\u{304}"),
    ('\u{22B}', "o\u{308}\u{304}"),
    ('\u{22C}', "O\u{303}\u{304}"),
    ('\u{22D}', "o\u{303}\u{304}"),
    ('\u{22E}', "O\u{307}"),
    ('\u{22F}', "o\u{307}"),
    ('\u{230}', "O\u{307}\u{304}"),
    ('\u{231}', "o\u{307}\u{304}"),
    ('\u{232}', "Y\u{304}"),
    ('\u{233}', "y\u{304}"),
    ('\u{386}', "\u{391}\u{301}"),
    ('\u{387}', "\u{B7}"),
    ('\u{388}', "\u{395}\u{301}"),
    ('\u{389}', "\u{397}\u{301}"),
    ('\u{38A}', "\u{399}\u{301}"),
    ('\u{38C}', "\u{39F}\u{301}"),
    ('\u{38E}', "\u{3A5}\u{301}"),
    ('\u{38F}', "\u{3A9}\u{301}"),
    ('\u{390}', "\u{3B9}\u{308}\u{301}"),
    ('\u{3AA}', "\u{399}\u{308}"),
    ('\u{3AB}', "\u{3A5}\u{308}"),
    ('\u{3AC}', "\u{3B1}\u{301}"),
    ('\u{3AD}', "\u{3B5}\u{301}"),
    ('\u{3AE}', "\u{3B7}\u{301}"),
    ('\u{3AF}', "\u{3B9}\u{301}"),
    ('\u{3B0}', "\u{3C5}\u{308}\u{301}"),
    ('\u{3CA}', "\u{3B9}\u{308}"),
    ('\u{3CB}', "\u{3C5}\u{308}"),
    ('\u{3CC}', "\u{3BF}\u{301}"),
    ('\u{3CD}', "\u{3C5}\u{301}"),
    ('\u{3CE}', "\u{3C9}\u{301}"),
    ('\u{400}', "\u{415}\u{300}"),
    ('\u{401}', "\u{415}\u{308}"),
    ('\u{403}', "\u{413}\u{301}"),
    ('\u{407}', "\u{406}\u{308}"),
    ('\u{40C}', "\u{41A}\u{301}"),
    ('\u{40D}', "\u{418}\u{300}"),
    ('\u{40E}', "\u{423}\u{306}"),
    ('\u{419}', "\u{418}\u{306}"),
    ('\u{439}', "\u{438}\u{306}"),
    ('\u{450}', "\u{435}\u{300}"),
    ('\u{451}', "\u{435}\u{308}"),
    ('\u{453}', "\u{433}\u{301}"),
    ('\u{457}', "\u{456}\u{308}"),
    ('\u{45C}', "\u{43A}\u{301}"),
    ('\u{45D}', "\u{438}\u{300}"),
    ('\u{45E}', "\u{443}\u{306}"),
    ('\u{476}', "\u{474}\u{30F}"),
    ('\u{477}', "\u{475}\u{30F}"),
    ('\u{4C1}', "\u{416}\u{306}"),
    ('\u{4C2}', "\u{436}\u{306}"),
    ('\u{4D0}', "\u{410}\u{306}"),
    ('\u{4D1}', "\u{430}\u{306}"),
    ('\u{4D2}', "\u{410}\u{308}"),
    ('\u{4D3}', "\u{430}\u{308}"),
    ('\u{4D6}', "\u{415}\u{306}"),
    ('\u{4D7}', "\u{435}\u{306}"),
    ('\u{4DA}', "\u{4D8}\u{308}"),
    ('\u{4DB}', "\u{4D9}\u{308}"),
    ('\u{4DC}', "\u{416}\u{308}"),
    ('\u{4DD}', "\u{436}\u{308}"),
    ('\u{4DE}', "\u{417}\u{308}"),
    ('\u{4DF}', "\u{437}\u{308}"),
    ('\u{4E2}', "\u{418}\u{304}"),
    ('\u{4E3}', "\u{438}\u{304}"),
    ('\u{4E4}', "\u{418}\u{308}"),
    ('\u{4E5}', "\u{438}\u{308}"),
    ('\u{4E6}', "\u{41E}\u{308}"),
    ('\u{4E7}', "\u{43E}\u{308}"),
    ('\u{4EA}', "\u{4E8}\u{308}"),
    ('\u{4EB}', "\u{4E9}\u{308}"),
    ('\u{4EC}', "\u{42D}\u{308}"),
    ('\u{4ED}', "\u{44D}\u{308}"),
    ('\u{4EE}', "\u{423}\u{304}"),
    ('\u{4EF}', "\u{443}\u{304}"),
    ('\u{4F0}', "\u{423}\u{308}"),
    ('\u{4F1}', "\u{443}\u{308}"),
    ('\u{4F2}', "\u{423}\u{30B}"),
    ('\u{4F3}', "\u{443}\u{30B}"),
    ('\u{4F4}', "\u{427}\u{308}"),
    ('\u{4F5}', "\u{447}\u{308}"),
    ('\u{4F8}', "\u{42B}\u{308}"),
    ('\u{4F9}', "\u{44B}\u{308}"),
    ('\u{1E00}', "A\u{325}"),
    ('\u{1E01}', "a\u{325}"),
    ('\u{1E02}', "B\u{307}"),
    ('\u{1E03}', "b\u{307}"),
    ('\u{1E04}', "B\u{323}"),
    ('\u{1E05}', "b\u{323}"),
    ('\u{1E06}', "B\u{331}"),
    ('\u{1E07}', "b\u{331}"),
    ('\u{1E08}', "C\u{327}\u{301}"),
    ('\u{1E09}', "c\u{327}\u{301}"),
    ('\u{1E0A}', "D\u{307}"),
    ('\u{1E0B}', "d\u{307}"),
    ('\u{1E0C}', "D\u{323}"),
    ('\u{1E0D}', "d\u{323}"),
    ('\u{1E0E}', "D\u{331}"),
    ('\u{1E0F}', "d\u{331}"),
    ('\u{1E10}', "D\u{327}"),
    ('\u{1E11}', "d\u{327}"),
    ('\u{1E12}', "D\u{32D}"),
    ('\u{1E13}', "d\u{32D}"),
    ('\u{1E14}', "E\u{304}\u{300}"),
    ('\u{1E15}', "e\u{304}\u{300}"),
    ('\u{1E16}', "E\u{304}\u{301}"),
    ('\u{1E17}', "e\u{304}\u{301}"),
    ('\u{1E18}', "E\u{32D}"),
    ('\u{1E19}', "e\u{32D}"),
    ('\u{1E1A}', "E\u{330}"),
    ('\u{1E1B}', "e\u{330}"),
    ('\u{1E1C}', "E\u{327}\u{306}"),
    ('\u{1E1D}', "e\u{327}\u{306}"),
    ('\u{1E1E}', "F\u{307}"),
    ('\u{1E1F}', "f\u{307}"),
    ('\u{1E20}', "G\u{304}"),
    ('\u{1E21}', "g\u{304}"),
    ('\u{1E22}', "H\u{307}"),
    ('\u{1E23}', "h\u{307}"),
    ('\u{1E24}', "H\u{323}"),
    ('\u{1E25}', "h\u{323}"),
    ('\u{1E26}', "H\u{308}"),
    ('\u{1E27}', "h\u{308}"),
    ('\u{1E28}', "H\u{327}"),
    ('\u{1E29}', "h\u{327}"),
    ('\u{1E2A}', "H\u{32E}"),
    ('\u{1E2B}', "h\u{32E}"),
    ('\u{1E2C}', "I\u{330}"),
    ('\u{1E2D}', "i\u{330}"),
    ('\u{1E2E}', "I\u{308}\u{301}"),
    ('\u{1E2F}', "i\u{308}\u{301}"),
    ('\u{1E30}', "K\u{301}"),
    ('\u{1E31}', "k\u{301}"),
    ('\u{1E32}', "K\u{323}"),
    ('\u{1E33}', "k\u{323}"),
    ('\u{1E34}', "K\u{331}"),
    ('\u{1E35}', "k\u{331}"),
    ('\u{1E36}', "L\u{323}"),
    ('\u{1E37}', "l\u{323}"),
    ('\u{1E38}', "L\u{323}\u{304}"),
    ('\u{1E39}', "l\u{323}\u{304}"),
    ('\u{1E3A}', "L\u{331}"),
    ('\u{1E3B}', "l\u{331}"),
    ('\u{1E3C}', "L\u{32D}"),
    ('\u{1E3D}', "l\u{32D}"),
    ('\u{1E3E}', "M\u{301}"),
    ('\u{1E3F}', "m\u{301}"),
    ('\u{1E40}', "M\u{307}"),
    ('\u{1E41}', "m\u{307}"),
    ('\u{1E42}', "M\u{323}"),
    ('\u{1E43}', "m\u{323}"),
    ('\u{1E44}', "N\u{307}"),
    ('\u{1E45}', "n\u{307}"),
    ('\u{1E46}', "N\u{323}"),
    ('\u{1E47}', "n\u{323}"),
    ('\u{1E48}', "N\u{331}"),
    ('\u{1E49}', "n\u{331}"),
    ('\u{1E4A}', "N\u{32D}"),
    ('\u{1E4B}', "n\u{32D}"),
    ('\u{1E4C}', "O\u{303}\u{301}"),
    ('\u{1E4D}', "o\u{303}\u{301}"),
    ('\u{1E4E}', "O\u{303}\u{308}"),
    ('\u{1E4F}', "o\u{303}\u{308}"),
    ('\u{1E50}', "O\u{304}\u{300}"),
    ('\u{1E51}', "o\u{304}\u{300}"),
    ('\u{1E52}', "O\u{304}\u{301}"),
    ('\u{1E53}', "o\u{304}\u{301}"),
    ('\u{1E54}', "P\u{301}"),
    ('\u{1E55}', "p\u{301}"),
    ('\u{1E56}', "P\u{307}"),
    ('\u{1E57}', "p\u{307}"),
    ('\u{1E58}', "R\u{307}"),
    ('\u{1E59}', "r\u{307}"),
    ('\u{1E5A}', "R\u{323}"),
    ('\u{1E5B}', "r\u{323}"),
    ('\u{1E5C}', "R\u{323}\u{304}"),
    ('\u{1E5D}', "r\u{323}\u{304}"),
    ('\u{1E5E}', "R\u{331}"),
    ('\u{1E5F}', "r\u{331}"),
    ('\u{1E60}', "S\u{307}"),
    ('\u{1E61}', "s\u{307}"),
    ('\u{1E62}', "S\u{323}"),
    ('\u{1E63}', "s\u{323}"),
    ('\u{1E64}', "S\u{301}\u{307}"),
    ('\u{1E65}', "s\u{301}\u{307}"),
    ('\u{1E66}', "S\u{30C}\u{307}"),
    ('\u{1E67}', "s\u{30C}\u{307}"),
    ('\u{1E68}', "S\u{323}\u{307}"),
    ('\u{1E69}', "s\u{323}\u{307}"),
    ('\u{1E6A}', "T\u{307}"),
    ('\u{1E6B}', "t\u{307}"),
    ('\u{1E6C}', "T\u{323}"),
    ('\u{1E6D}', "t\u{323}"),
    ('\u{1E6E}', "T\u{331}"),
    ('\u{1E6F}', "t\u{331}"),
    ('\u{1E70}', "T\u{32D}"),
    ('\u{1E71}', "t\u{32D}"),
    ('\u{1E72}', "U\u{324}"),
    ('\u{1E73}', "u\u{324}"),
    ('\u{1E74}', "U\u{330}"),
    ('\u{1E75}', "u\u{330}"),
    ('\u{1E76}', "U\u{32D}"),
    ('\u{1E77}', "u\u{32D}"),
    ('\u{1E78}', "U\u{303}\u{301}"),
    ('\u{1E79}', "u\u{303}\u{301}"),
    ('\u{1E7A}', "U\u{304}\u{308}"),
    ('\u{1E7B}', "u\u{304}\u{308}"),
    ('\u{1E7C}', "V\u{303}"),
    ('\u{1E7D}', "v\u{303}"),
    ('\u{1E7E}', "V\u{323}"),
    ('\u{1E7F}', "v\u{323}"),
    ('\u{1E80}', "W\u{300}"),
    ('\u{1E81}', "w\u{300}"),
    ('\u{1E82}', "W\u{301}"),
    ('\u{1E83}', "w\u{301}"),
    ('\u{1E84}', "W\u{308}"),
    ('\u{1E85}', "w\u{308}"),
    ('\u{1E86}', "W\u{307}"),
    ('\u{1E87}', "w\u{307}"),
    ('\u{1E88}', "W\u{323}"),
    ('\u{1E89}', "w\u{323}"),
    ('\u{1E8A}', "X\u{307}"),
    ('\u{1E8B}', "x\u{307}"),
    ('\u{1E8C}', "X\u{308}"),
    ('\u{1E8D}', "x\u{308}"),
    ('\u{1E8E}', "Y\u{307}"),
    ('\u{1E8F}', "y\u{307}"),
    ('\u{1E90}', "Z\u{302}"),
    ('\u{1E91}', "z\u{302}"),
    ('\u{1E92}', "Z\u{323}"),
    ('\u{1E93}', "z\u{323}"),
    ('\u{1E94}', "Z\u{331}"),
    ('\u{1E95}', "z\u{331}"),
    ('\u{1E96}', "h\u{331}"),
    ('\u{1E97}', "t\u{308}"),
    ('\u{1E98}', "w\u{30A}"),
    ('\u{1E99}', "y\u{30A}"),
    ('\u{1E9B}', "\u{17F}\u{307}"),
    ('\u{1EA0}', "A\u{323}"),
    ('\u{1EA1}', "a\u{323}"),
    ('\u{1EA2}', "A\u{309}"),
    ('\u{1EA3}', "a\u{309}"),
    ('\u{1EA4}', "A\u{302}\u{301}"),
    ('\u{1EA5}', "a\u{302}\u{301}"),
    ('\u{1EA6}', "A\u{302}\u{300}"),
    ('\u{1EA7}', "a\u{302}\u{300}"),
    ('\u{1EA8}', "A\u{302}\u{309}"),
    ('\u{1EA9}', "a\u{302}\u{309}"),
    ('\u{1EAA}', "A\u{302}\u{303}"),
    ('\u{1EAB}', "a\u{302}\u{303}"),
    ('\u{1EAC}', "A\u{323}\u{302}"),
    ('\u{1EAD}', "a\u{323}\u{302}"),
    ('\u{1EAE}', "A\u{306}\u{301}"),
    ('\u{1EAF}', "a\u{306}\u{301}"),
    ('\u{1EB0}', "A\u{306}\u{300}"),
    ('\u{1EB1}', "a\u{306}\u{300}"),
    ('\u{1EB2}', "A\u{306}\u{309}"),
    ('\u{1EB3}', "a\u{306}\u{309}"),
    ('\u{1EB4}', "A\u{306}\u{303}"),
    ('\u{1EB5}', "a\u{306}\u{303}"),
    ('\u{1EB6}', "A\u{323}\u{306}"),
    ('\u{1EB7}', "a\u{323}\u{306}"),
    ('\u{1EB8}', "E\u{323}"),
    ('\u{1EB9}', "e\u{323}"),
    ('\u{1EBA}', "E\u{309}"),
    ('\u{1EBB}', "e\u{309}"),
    ('\u{1EBC}', "E\u{303}"),
    ('\u{1EBD}', "e\u{303}"),
    ('\u{1EBE}', "E\u{302}\u{301}"),
    ('\u{1EBF}', "e\u{302}\u{301}"),
    ('\u{1EC0}', "E\u{302}\u{300}"),
    ('\u{1EC1}', "e\u{302}\u{300}"),
    ('\u{1EC2}', "E\u{302}\u{309}"),
    ('\u{1EC3}', "e\u{302}\u{309}"),
    ('\u{1EC4}', "E\u{302}\u{303}"),
    ('\u{1EC5}', "e\u{302}\u{303}"),
    ('\u{1EC6}', "E\u{323}\u{302}"),
    ('\u{1EC7}', "e\u{323}\u{302}"),
    ('\u{1EC8}', "I\u{309}"),
    ('\u{1EC9}', "i\u{309}"),
    ('\u{1ECA}', "I\u{323}"),
    ('\u{1ECB}', "i\u{323}"),
    ('\u{1ECC}', "O\u{323}"),
    ('\u{1ECD}', "o\u{323}"),
    ('\u{1ECE}', "O\u{309}"),
    ('\u{1ECF}', "o\u{309}"),
    ('\u{1ED0}', "O\u{302}\u{301}"),
    ('\u{1ED1}', "o\u{302}\u{301}"),
    ('\u{1ED2}', "O\u{302}\u{300}"),
    ('\u{1ED3}', "o\u{302}\u{300}"),
    ('\u{1ED4}', "O\u{302}\u{309}"),
    ('\u{1ED5}', "o\u{302}\u{309}"),
    ('\u{1ED6}', "O\u{302}\u{303}"),
    ('\u{1ED7}', "o\u{302}\u{303}"),
    ('\u{1ED8}', "O\u{323}\u{302}"),
    ('\u{1ED9}', "o\u{323}\u{302}"),
    ('\u{1EDA}', "O\u{31B}\u{301}"),
    ('\u{1EDB}', "o\u{31B}\u{301}"),
    ('\u{1EDC}', "O\u{31B}\u{300}"),
    ('\u{1EDD}', "o\u{31B}\u{300}"),
    ('\u{1EDE}', "O\u{31B}\u{309}"),
    ('\u{1EDF}', "o\u{31B}\u{309}"),
    ('\u{1EE0}', "O\u{31B}\u{303}"),
    ('\u{1EE1}', "o\u{31B}\u{303}"),
    ('\u{1EE2}', "O\u{31B}\u{323}"),
    ('\u{1EE3}', "o\u{31B}\u{323}"),
    ('\u{1EE4}', "U\u{323}"),
    ('\u{1EE5}', "u\u{323}"),
    ('\u{1EE6}', "U\u{309}"),
    ('\u{1EE7}', "u\u{309}"),
    ('\u{1EE8}', "U\u{31B}\u{301}"),
    ('\u{1EE9}', "u\u{31B}\u{301}"),
    ('\u{1EEA}', "U\u{31B}\u{300}"),
    ('\u{1EEB}', "u\u{31B}\u{300}"),
    ('\u{1EEC}', "U\u{31B}\u{309}"),
    ('\u{1EED}', "u\u{31B}\u{309}"),
    ('\u{1EEE}', "U\u{31B}\u{303}"),
    ('\u{1EEF}', "u\u{31B}\u{303}"),
    ('\u{1EF0}', "U\u{31B}\u{323}"),
    ('\u{1EF1}', "u\u{31B}\u{323}"),
    ('\u{1EF2}', "Y\u{300}"),
    ('\u{1EF3}', "y\u{300}"),
    ('\u{1EF4}', "Y\u{323}"),
    ('\u{1EF5}', "y\u{323}"),
    ('\u{1EF6}', "Y\u{309}"),
    ('\u{1EF7}', "y\u{309}"),
    ('\u{1EF8}', "Y\u{303}"),
    ('\u{1EF9}', "y\u{303}"),
];

/// `name` with each precomposed letter of [`DECOMPOSITIONS`] decomposed (NFD for the scripts that table covers).
fn decomposed(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 8);
    for character in name.chars() {
        match DECOMPOSITIONS.binary_search_by(|(c, _)| c.cmp(&character)) {
            Ok(index) => out.push_str(DECOMPOSITIONS.get(index).map_or("", |(_, d)| *d)),
            Err(_) => out.push(character),
        }
    }
    out
}

/// `U+XXXX NAME` for a character of the tables above, `U+XXXX` for any other.
fn describe(character: char) -> String {
    let code = format!("U+{:04X}", u32::from(character));
    let name = LOOK_ALIKES
        .iter()
        .find(|(c, _, _)| *c == character)
        .map(|(_, name, _)| *name)
        .or_else(|| {
            INVISIBLE
                .iter()
                .find(|(c, _)| *c == character)
                .map(|(_, name)| *name)
        })
        .or_else(|| {
            LIGATURES
                .iter()
                .find(|(c, _, _)| *c == character)
                .map(|(_, name, _)| *name)
        });
    match (name, character) {
        (Some(name), _) => format!("{code} {name}"),
        (None, ' ') => "a space".to_string(),
        (None, c) if c.is_ascii_graphic() => format!("`{c}`"),
        (None, _) => code,
    }
}

/// A name folded to what it looks like: decomposed, invisible characters dropped, look-alikes replaced,
/// ligatures spelled out.
fn skeleton(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in decomposed(name).chars() {
        if is_invisible(c) {
            continue;
        }
        if let Some(letters) = ligature_letters(c) {
            out.push_str(letters);
            continue;
        }
        out.push(
            LOOK_ALIKES
                .iter()
                .find(|(alike, _, _)| *alike == c)
                .map_or(c, |(_, _, looks)| *looks),
        );
    }
    out
}

/// `name` as a message may show it: each bidirectional control (U+202E RIGHT-TO-LEFT OVERRIDE and the like),
/// invisible character and control character written as `<U+XXXX>`, so the text around it cannot be reordered or
/// hidden. Other characters are kept.
pub fn shown_name(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if c.is_control() || is_invisible(c) {
            out.push_str(&format!("<U+{:04X}>", u32::from(c)));
        } else {
            out.push(c);
        }
    }
    out
}

/// The whitespace at the start and at the end of `name` (Unicode `White_Space`).
fn edges(name: &str) -> (&str, &str) {
    let trimmed_start = name.trim_start();
    let leading = &name[..name.len() - trimmed_start.len()];
    let trimmed = trimmed_start.trim_end();
    let trailing = &trimmed_start[trimmed.len()..];
    (leading, trailing)
}

/// Whitespace in words: `"a trailing space"`, `"2 leading tabs (U+0009)"`, `"a leading space and a newline
/// (U+000A LINE FEED)"`.
fn whitespace_words(whitespace: &str, edge: &str) -> String {
    let mut runs: Vec<(char, usize)> = Vec::new();
    for c in whitespace.chars() {
        match runs.last_mut() {
            Some((last, count)) if *last == c => *count += 1,
            _ => runs.push((c, 1)),
        }
    }
    let words: Vec<String> = runs
        .iter()
        .map(|(c, count)| {
            let name = EDGE_WHITESPACE
                .iter()
                .find(|(w, _)| w == c)
                .map_or_else(|| describe(*c), |(_, name)| (*name).to_string());
            if *count == 1 {
                format!("a {name}")
            } else {
                format!("{count} × {name}")
            }
        })
        .collect();
    format!("{} at the {edge}", words.join(" and "))
}

/// When `asked` and `existing` differ only in whitespace at their start or end (a trailing space, tab or newline a
/// model copied along), the difference in words; `None` otherwise.
fn whitespace_difference(asked: &str, existing: &str) -> Option<String> {
    if asked == existing || asked.trim() != existing.trim() {
        return None;
    }
    let (asked_lead, asked_trail) = edges(asked);
    let (existing_lead, existing_trail) = edges(existing);
    let mut parts = Vec::new();
    for (mine, theirs, edge) in [
        (asked_lead, existing_lead, "start"),
        (asked_trail, existing_trail, "end"),
    ] {
        if mine == theirs {
            continue;
        }
        parts.push(match (mine.is_empty(), theirs.is_empty()) {
            (false, true) => name_lacks(&whitespace_words(mine, edge)),
            (true, false) => name_has_extra(&whitespace_words(theirs, edge)),
            _ => name_has_instead(
                &whitespace_words(theirs, edge),
                &whitespace_words(mine, edge),
            ),
        });
    }
    Some(parts.join("; "))
}

/// When `existing` differs from `asked` only by invisible or look-alike characters or by normalization, the
/// difference in words, naming the code points: `the name has U+00A0 NO-BREAK SPACE where you wrote a space`.
/// `None` when the names are equal or differ in what they show.
pub fn confusable_difference(asked: &str, existing: &str) -> Option<String> {
    if let Some(difference) = whitespace_difference(asked, existing) {
        return Some(difference);
    }
    if asked == existing || skeleton(asked) != skeleton(existing) {
        return None;
    }
    let asked_nfd = decomposed(asked);
    let existing_nfd = decomposed(existing);
    if asked_nfd == existing_nfd {
        return Some(format!(
            "the name is written {} where you wrote it {}",
            normalization_form(existing),
            normalization_form(asked)
        ));
    }
    let asked_chars: Vec<char> = asked_nfd.chars().collect();
    let existing_chars: Vec<char> = existing_nfd.chars().collect();
    character_difference(&asked_chars, &existing_chars)
}

/// How `name` is normalized, in words: decomposed (NFD) when [`decomposed`] leaves it as it is, else composed.
fn normalization_form(name: &str) -> &'static str {
    if decomposed(name) == name {
        "decomposed (NFD: a letter followed by its combining accent, as macOS writes names)"
    } else {
        "composed (NFC)"
    }
}

/// The first difference between two decomposed names of the same skeleton, character by character: a ligature
/// against its letters, an invisible character on one side, or a look-alike; `None` when there is none.
fn character_difference(asked: &[char], existing: &[char]) -> Option<String> {
    let (mut i, mut j) = (0, 0);
    loop {
        let (a, e) = (asked.get(i).copied(), existing.get(j).copied());
        if let (Some(a), Some(e)) = (a, e) {
            if a != e {
                if let Some(difference) = ligature_difference(asked, i, existing, j) {
                    return Some(difference);
                }
            }
        }
        match (a, e) {
            (Some(a), Some(e)) if a == e => {
                i += 1;
                j += 1;
            }
            (_, Some(e)) if is_invisible(e) => {
                return Some(name_has_extra(&format!("an invisible {}", describe(e))));
            }
            (Some(a), _) if is_invisible(a) => {
                return Some(name_lacks(&format!("an invisible {}", describe(a))));
            }
            (Some(a), Some(e)) => return Some(name_has_instead(&describe(e), &describe(a))),
            _ => return None,
        }
    }
}

/// The difference when character `j` of `existing` is a ligature that `asked` spells out in letters from
/// character `i`, or the other way round; `None` when neither is.
fn ligature_difference(asked: &[char], i: usize, existing: &[char], j: usize) -> Option<String> {
    let (a, e) = (*asked.get(i)?, *existing.get(j)?);
    if let Some(letters) = ligature_letters(e).filter(|l| spelled_at(asked, i, l)) {
        return Some(name_has_instead(
            &format!("the ligature {}", describe(e)),
            &format!("`{letters}`"),
        ));
    }
    if let Some(letters) = ligature_letters(a).filter(|l| spelled_at(existing, j, l)) {
        return Some(name_has_instead(
            &format!("`{letters}`"),
            &format!("the ligature {}", describe(a)),
        ));
    }
    None
}

/// Whether `chars` hold `letters` from character `at` on.
fn spelled_at(chars: &[char], at: usize, letters: &str) -> bool {
    letters
        .chars()
        .enumerate()
        .all(|(k, c)| chars.get(at + k) == Some(&c))
}

/// The letters a ligature of [`LIGATURES`] stands for; `None` for any other character.
fn ligature_letters(character: char) -> Option<&'static str> {
    LIGATURES
        .iter()
        .find(|(ligature, _, _)| *ligature == character)
        .map(|(_, _, letters)| *letters)
}

/// Whether `character` is one of the [`INVISIBLE`] ones.
fn is_invisible(character: char) -> bool {
    INVISIBLE
        .iter()
        .any(|(invisible, _)| *invisible == character)
}

/// `the name has {theirs} where you wrote {mine}`: the name holds `theirs` in place of what was asked.
fn name_has_instead(theirs: &str, mine: &str) -> String {
    format!("the name has {theirs} where you wrote {mine}")
}

/// `the name has {theirs} that you did not write`: the name holds `theirs` and the request does not.
fn name_has_extra(theirs: &str) -> String {
    format!("the name has {theirs} that you did not write")
}

/// `you wrote {mine} that the name does not have`: the request holds `mine` and the name does not.
fn name_lacks(mine: &str) -> String {
    format!("you wrote {mine} that the name does not have")
}

/// The sentence for a requested path that starts with `~`: the sandbox does not expand it (it is a name like any
/// other), and the granted roots (`` `~` is not expanded in the sandbox: ... The granted roots are /w, /data.``);
/// empty for any other path. It makes no claim about home directories: a granted root may well be one.
pub fn tilde_sentence(requested: &str, roots: &[String]) -> String {
    if !requested.starts_with('~') {
        return String::new();
    }
    format!(
        " `~` is not expanded in the sandbox (it is read as a name like any other, relative to the working directory): give the full path under a granted root, or a path relative to the working directory. The granted roots are {}.",
        roots.join(", ")
    )
}

/// The warning for a read that succeeded through a path starting with `~/`: the `~` was not expanded, so what was
/// read is under a directory literally named `~` (`resolved`, the absolute guest path read); `None` for any other
/// path.
pub fn tilde_note(requested: &str, resolved: &str) -> Option<String> {
    requested.starts_with("~/").then(|| {
        format!(
            "`~` was not expanded: {resolved} is inside a directory literally named `~`, not a home directory."
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn look_alike_and_invisible_characters_are_named_by_code_point() {
        assert_eq!(
            confusable_difference("Screen Shot 1.png", "Screen\u{00A0}Shot 1.png").as_deref(),
            Some("the name has U+00A0 NO-BREAK SPACE where you wrote a space")
        );
        assert_eq!(
            confusable_difference("data.csv", "d\u{0430}ta.csv").as_deref(),
            Some("the name has U+0430 CYRILLIC SMALL LETTER A where you wrote `a`")
        );
        assert_eq!(
            confusable_difference("notes.txt", "no\u{200B}tes.txt").as_deref(),
            Some("the name has an invisible U+200B ZERO WIDTH SPACE that you did not write")
        );
        assert_eq!(
            confusable_difference("caf\u{00E9}.txt", "cafe\u{0301}.txt").as_deref(),
            Some("the name is written decomposed (NFD: a letter followed by its combining accent, as macOS writes names) where you wrote it composed (NFC)")
        );
        assert_eq!(confusable_difference("a.txt", "b.txt"), None);
        assert_eq!(confusable_difference("a.txt", "a.txt"), None);
    }

    #[test]
    fn whitespace_at_the_edges_tabs_ligatures_and_bidi_controls_are_named() {
        assert_eq!(
            confusable_difference("os.py ", "os.py").as_deref(),
            Some("you wrote a space at the end that the name does not have")
        );
        assert_eq!(
            confusable_difference("os.py\t\n", "os.py").as_deref(),
            Some("you wrote a tab (U+0009) and a newline (U+000A LINE FEED) at the end that the name does not have")
        );
        assert_eq!(
            confusable_difference(" os.py", "os.py").as_deref(),
            Some("you wrote a space at the start that the name does not have")
        );
        assert_eq!(
            confusable_difference("notes.txt", "notes.txt  ").as_deref(),
            Some("the name has 2 × space at the end that you did not write")
        );
        assert_eq!(
            confusable_difference("a b.txt", "a\tb.txt").as_deref(),
            Some("the name has U+0009 CHARACTER TABULATION (a tab) where you wrote a space")
        );
        assert_eq!(
            confusable_difference("file.txt", "\u{FB01}le.txt").as_deref(),
            Some("the name has the ligature U+FB01 LATIN SMALL LIGATURE FI where you wrote `fi`")
        );
        assert_eq!(
            confusable_difference("\u{FB01}le.txt", "file.txt").as_deref(),
            Some("the name has `fi` where you wrote the ligature U+FB01 LATIN SMALL LIGATURE FI")
        );
        assert_eq!(
            confusable_difference("report.txt", "report\u{202E}.txt").as_deref(),
            Some("the name has an invisible U+202E RIGHT-TO-LEFT OVERRIDE that you did not write")
        );
        assert_eq!(shown_name("a\u{202E}txt.exe"), "a<U+202E>txt.exe");
        assert_eq!(shown_name("tab\there"), "tab<U+0009>here");
        assert_eq!(shown_name("plain é.txt"), "plain é.txt");
    }

    #[test]
    fn a_tilde_path_names_the_roots() {
        assert_eq!(
            tilde_sentence("~/notes.txt", &["/w".to_string(), "/data".to_string()]),
            " `~` is not expanded in the sandbox (it is read as a name like any other, relative to the working directory): give the full path under a granted root, or a path relative to the working directory. The granted roots are /w, /data."
        );
        assert_eq!(tilde_sentence("notes.txt", &["/w".to_string()]), "");
    }
}
