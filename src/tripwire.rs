//! The tripwire's count: how many times a read came round in a run of unchanged reads.
//!
//! The history holds *entries*: a read of one window, or a whole call for several files (`read_many`), whose reads
//! are one entry so that a call of any number of files repeated (C C C), or alternating with other reads (C X C X),
//! is a run like a single window's. A read is counted twice over: identical entries in a row, and cycles of up to
//! [`MAX_CYCLE`] entries. A call repeats an earlier call when it asked for the same files (the same paths, patterns
//! expanded, and limit) and each file both read answered the same: the budget may reach more files in one call
//! than in the other (stubs and refusals cost less than content), so only the files both reached are compared.
//! Within a call each file's read is counted as the call read so far.
//!
//! Each entry keeps, for every period, how many entries in a row ending with it repeat the entry that period
//! before them, so a run is counted however long it lasts (the history only needs two rounds of the longest
//! cycle). Only prints are compared (a read's print covers its key and its window's hash); the paths are kept so
//! that a write or a change of a file ends the runs it is part of. Everything here is pure.

use std::collections::VecDeque;
use std::hash::{Hash, Hasher};

/// The longest cycle (in entries) the tripwire finds.
pub const MAX_CYCLE: usize = 5;
/// Entries the tripwire keeps: two rounds of the longest cycle (a round's windows are those of the round before).
const HISTORY: usize = 2 * MAX_CYCLE;

/// The print of `value` the tripwire compares: a session-local 64-bit hash (rustc-hash), equal for equal values and
/// for different ones as unlikely to be equal as two window hashes, which dedup already trusts.
pub fn print_of(value: &impl Hash) -> u64 {
    let mut hasher = rustc_hash::FxHasher::default();
    value.hash(&mut hasher);
    hasher.finish()
}

/// How many times a read came round in its run, and in a run of how many windows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Count {
    /// Reads of this window in the run, this one included: identical reads in a row, or rounds of the cycle.
    pub count: u32,
    /// The windows in the run's round: 1 for one window read again and again, 2 or more for a cycle or a call.
    pub cycle: u32,
}

/// The count of a read that is no repeat.
const FIRST: Count = Count { count: 1, cycle: 1 };

/// One entry of the history.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Entry {
    /// For a call for several files, a print of what it asked for (its paths, patterns expanded, and its limit);
    /// `None` for a read of one window.
    asked: Option<u64>,
    /// The prints of its reads, in order (one for a read of one window).
    prints: Vec<u64>,
    /// The resolved paths it read, for [`Tripwire::forget_path`].
    paths: Vec<String>,
    /// At index `p` (1 to [`MAX_CYCLE`]): the entries in a row, ending with this one, that repeat the entry `p`
    /// before them.
    runs: [u32; MAX_CYCLE + 1],
    /// The count this entry got.
    count: Count,
    /// The most answers a call of its run reached (its own, or an earlier call it repeats): a file past them is
    /// new to the run.
    reach: usize,
}

impl Entry {
    /// An entry not yet counted.
    fn new(asked: Option<u64>, prints: Vec<u64>, paths: Vec<String>) -> Entry {
        Entry {
            asked,
            prints,
            paths,
            runs: [0; MAX_CYCLE + 1],
            count: FIRST,
            reach: 0,
        }
    }

    /// Whether `self` (the newer) repeats `older`: the same read, or a call that asked for the same and whose
    /// answers are the same as far as both reached (a call still open, as read so far). `to_its_last`: and a call
    /// of `older`'s run reached `self`'s last answer too (a file no earlier call reached is new to the run).
    fn repeats(&self, older: &Entry, to_its_last: bool) -> bool {
        let both = self.prints.len().min(older.prints.len());
        self.asked == older.asked
            && self.prints.get(..both) == older.prints.get(..both)
            && (!to_its_last || older.reach.max(older.prints.len()) >= self.prints.len())
    }

    /// The windows it read (at least 1).
    fn windows(&self) -> u32 {
        u32::try_from(self.prints.len().max(1)).unwrap_or(u32::MAX)
    }
}

/// An entry's place in the runs, as [`Tripwire::counted`] finds it.
struct Counted {
    count: Count,
    runs: [u32; MAX_CYCLE + 1],
    /// The most answers a call of its run reached ([`Entry::reach`]).
    reach: usize,
    /// A fresh repeat right after a stub: counted in the stubbed read's place, not added.
    in_place_of_stub: bool,
}

/// A call for several files in progress.
#[derive(Debug)]
struct OpenCall {
    entry: Entry,
    /// Whether the call asked for fresh reads.
    fresh: bool,
    /// Whether one of its reads was answered with a stub so far.
    stubbed: bool,
    /// Whether a file it names may have changed since it was last read (its size or modification time moved): its
    /// reads are neither warned nor blocked, as a run in which a window changed is no run; whether it was one is
    /// known once the call ends, and the history records that.
    maybe_changed: bool,
}

/// The tripwire's memory of one session.
#[derive(Debug, Default)]
pub struct Tripwire {
    history: VecDeque<Entry>,
    /// Whether the newest entry was answered with a stub (a call: one of its reads was).
    last_stubbed: bool,
    call: Option<OpenCall>,
    /// Reads counted (with a window or another answer), for a caller that must know whether a read was.
    counted_reads: u64,
}

impl Tripwire {
    /// Counts a read of a window of `path` whose print is `print` (equal for equal reads), and records it. A
    /// `fresh` read right after the stub of the same read is that read again (the way back the stub names), not
    /// one more: it gets the count the stubbed read had.
    pub fn count(&mut self, path: &str, print: u64, fresh: bool) -> Count {
        self.counted_reads = self.counted_reads.wrapping_add(1);
        let Some(mut call) = self.call.take() else {
            let entry = Entry::new(None, vec![print], vec![path.to_owned()]);
            let counted = self.counted(&entry, fresh, false);
            self.settle(entry, &counted);
            return counted.count;
        };
        call.entry.prints.push(print);
        call.entry.paths.push(path.to_owned());
        // The file is counted as the call so far, against earlier calls that reached it too.
        let counted = self.counted(&call.entry, call.fresh, true);
        let count = if call.maybe_changed {
            FIRST
        } else {
            counted.count
        };
        self.call = Some(call);
        count
    }

    /// Notes how the read just counted was answered: with a stub or not.
    pub fn answered(&mut self, stubbed: bool) {
        match &mut self.call {
            Some(call) => call.stubbed |= stubbed,
            None => self.last_stubbed = stubbed,
        }
    }

    /// A call for several files starts: `asked` is a print of what it asks for (its paths, patterns expanded,
    /// and its limit), read with `fresh` or not; `maybe_changed` when one of its files may have changed since it
    /// was read (see [`OpenCall`]). Its reads are counted as one entry, ended by [`Tripwire::end_call`].
    pub fn begin_call(&mut self, asked: u64, fresh: bool, maybe_changed: bool) {
        self.call = Some(OpenCall {
            entry: Entry::new(Some(asked), Vec::new(), Vec::new()),
            fresh,
            stubbed: false,
            maybe_changed,
        });
    }

    /// The reads counted so far (with a window, or as another answer): a read that did not change it was not.
    pub fn counted_reads(&self) -> u64 {
        self.counted_reads
    }

    /// Whether a call for several files is open.
    pub fn in_call(&self) -> bool {
        self.call.is_some()
    }

    /// A read of `path` answered without a window (it failed, or listed a directory): `print` stands for what it
    /// answered. In the open call it is one of the call's answers (the call is a repeat only when that answer is
    /// the same); outside a call it is a read of its own, which breaks a run of identical reads and takes its place
    /// in a cycle (a read alternating with a failing one, or with a listing, is a loop too).
    pub fn other_answer(&mut self, path: &str, print: u64) {
        self.counted_reads = self.counted_reads.wrapping_add(1);
        match &mut self.call {
            Some(call) => {
                call.entry.prints.push(print);
                call.entry.paths.push(path.to_owned());
            }
            None => {
                let entry = Entry::new(None, vec![print], vec![path.to_owned()]);
                let counted = self.counted(&entry, false, false);
                self.settle(entry, &counted);
                self.last_stubbed = false;
            }
        }
    }

    /// The open call ends: it joins the history as one entry.
    pub fn end_call(&mut self) {
        if let Some(call) = self.call.take() {
            let counted = self.counted(&call.entry, call.fresh, false);
            self.settle(call.entry, &counted);
            self.last_stubbed = call.stubbed;
        }
    }

    /// Every run starts over (a tool other than a read ran, or a file in the history changed). An open call's
    /// reads stay: it joins the history when it ends, and a call that repeats it is a repeat.
    pub fn clear(&mut self) {
        self.history.clear();
        self.last_stubbed = false;
    }

    /// A file whose path `matches` was written or changed: a run it is part of is no run of unchanged reads.
    pub fn forget_path(&mut self, matches: impl Fn(&str) -> bool) {
        let involved = |entry: &Entry| entry.paths.iter().any(|path| matches(path));
        if self.history.iter().any(involved) {
            self.clear();
        }
    }

    /// The count of `entry` as the newest entry (a call still open: as read so far; `to_its_last`: its last file
    /// counted only against calls that reached it): for each period, the run of entries repeating the one that
    /// period before, which counts once it came round whole (A B A B; before that, A B A or A X A Y A, the count is
    /// 1), the newest being one of every `period` entries of it.
    fn counted(&self, entry: &Entry, fresh: bool, to_its_last: bool) -> Counted {
        let previous = self.history.back();
        if let Some(previous) = previous {
            if fresh && self.last_stubbed && entry.repeats(previous, to_its_last) {
                return Counted {
                    count: previous.count,
                    runs: previous.runs,
                    reach: previous.reach,
                    in_place_of_stub: true,
                };
            }
        }
        let length = self.history.len();
        let mut runs = [0u32; MAX_CYCLE + 1];
        let previous_runs = previous.map_or([0; MAX_CYCLE + 1], |previous| previous.runs);
        let mut best = FIRST;
        let mut reach = entry.prints.len();
        for (period, (run, previous_run)) in runs.iter_mut().zip(previous_runs).enumerate().skip(1)
        {
            let older = length
                .checked_sub(period)
                .and_then(|index| self.history.get(index));
            if let Some(older) = older.filter(|older| entry.repeats(older, to_its_last)) {
                *run = previous_run.saturating_add(1);
                reach = reach.max(older.reach);
            }
            let run = *run as usize;
            if run < period {
                continue;
            }
            let count = u32::try_from(run.div_ceil(period))
                .unwrap_or(u32::MAX)
                .saturating_add(1);
            if count > best.count {
                best = Count {
                    count,
                    cycle: self.round_windows(period),
                };
            }
        }
        Counted {
            count: best,
            runs,
            reach,
            in_place_of_stub: false,
        }
    }

    /// The windows of a round of `period` entries: those of the round before the newest entry (complete entries
    /// all; the history holds them once a run of that period has come round).
    fn round_windows(&self, period: usize) -> u32 {
        let length = self.history.len();
        let round = (length + 1).saturating_sub(2 * period)..(length + 1).saturating_sub(period);
        round
            .filter_map(|index| self.history.get(index))
            .map(Entry::windows)
            .fold(0u32, u32::saturating_add)
    }

    /// Adds the counted `entry` to the history, but for a fresh repeat right after a stub (counted in its place).
    fn settle(&mut self, mut entry: Entry, counted: &Counted) {
        if counted.in_place_of_stub {
            return;
        }
        entry.runs = counted.runs;
        entry.count = counted.count;
        entry.reach = counted.reach;
        self.history.push_back(entry);
        while self.history.len() > HISTORY {
            self.history.pop_front();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A call of `prints` (one a file, named as `/w/0`, `/w/1`, ...; what it asked for stands as their number),
    /// each file's count in order.
    fn call(tripwire: &mut Tripwire, prints: &[u64], fresh: bool, stubbed: bool) -> Vec<Count> {
        call_asking(
            tripwire,
            prints.len() as u64,
            prints,
            (fresh, stubbed, false),
        )
    }

    /// A call that asked for `asked` and answered `prints`, `(fresh, stubbed, maybe_changed)`.
    fn call_asking(
        tripwire: &mut Tripwire,
        asked: u64,
        prints: &[u64],
        (fresh, stubbed, maybe_changed): (bool, bool, bool),
    ) -> Vec<Count> {
        tripwire.begin_call(asked, fresh, maybe_changed);
        let counts = prints
            .iter()
            .enumerate()
            .map(|(index, print)| {
                let count = tripwire.count(&format!("/w/{index}"), *print, fresh);
                tripwire.answered(stubbed);
                count
            })
            .collect();
        tripwire.end_call();
        counts
    }

    fn read(tripwire: &mut Tripwire, print: u64, stubbed: bool) -> Count {
        let count = tripwire.count("/w/x", print, false);
        tripwire.answered(stubbed);
        count
    }

    fn each(count: u32, cycle: u32, files: usize) -> Vec<Count> {
        vec![Count { count, cycle }; files]
    }

    #[test]
    fn a_call_of_twenty_files_repeated_is_one_read_repeated() {
        let mut tripwire = Tripwire::default();
        let prints: Vec<u64> = (100..120).collect();
        assert_eq!(call(&mut tripwire, &prints, false, false), each(1, 1, 20));
        assert_eq!(call(&mut tripwire, &prints, false, true), each(2, 20, 20));
        assert_eq!(call(&mut tripwire, &prints, false, false), each(3, 20, 20));
        // Past the entries the history keeps: identical calls in a row are still counted.
        for round in 4..=20 {
            assert_eq!(
                call(&mut tripwire, &prints, false, false),
                each(round, 20, 20)
            );
        }
    }

    #[test]
    fn a_call_alternating_with_a_read_is_a_cycle_of_both() {
        let mut tripwire = Tripwire::default();
        let prints: Vec<u64> = (1..=6).collect();
        assert_eq!(call(&mut tripwire, &prints, true, false), each(1, 1, 6));
        assert_eq!(read(&mut tripwire, 50, false), Count { count: 1, cycle: 1 });
        assert_eq!(call(&mut tripwire, &prints, true, false), each(1, 1, 6));
        // The cycle came round whole: the read is its second of the read, the call's third is the call's.
        assert_eq!(read(&mut tripwire, 50, false), Count { count: 2, cycle: 7 });
        assert_eq!(call(&mut tripwire, &prints, true, false), each(3, 7, 6));
        assert_eq!(read(&mut tripwire, 50, false), Count { count: 3, cycle: 7 });
    }

    #[test]
    fn a_fresh_call_right_after_its_stubs_is_counted_in_their_place() {
        let mut tripwire = Tripwire::default();
        let prints = [7, 8, 9, 10, 11, 12];
        call(&mut tripwire, &prints, false, false);
        assert_eq!(call(&mut tripwire, &prints, false, true), each(2, 6, 6));
        assert_eq!(call(&mut tripwire, &prints, true, false), each(2, 6, 6));
        assert_eq!(call(&mut tripwire, &prints, true, false), each(3, 6, 6));
        assert_eq!(call(&mut tripwire, &prints, true, false), each(4, 6, 6));
    }

    #[test]
    fn a_call_is_counted_as_far_as_it_repeats_and_by_the_paths_it_named() {
        let mut tripwire = Tripwire::default();
        call(&mut tripwire, &[1, 2, 3, 4, 5, 6], false, false);
        // The fourth file changed: the first three repeat the call so far, the rest do not.
        let counts = call(&mut tripwire, &[1, 2, 3, 40, 5, 6], false, false);
        assert_eq!(counts[..3], each(2, 6, 3)[..]);
        assert_eq!(counts[3..], each(1, 1, 3)[..]);
        // The same first files in a call that named one path more are another call.
        let longer = call(&mut tripwire, &[1, 2, 3, 40, 5, 6, 7], false, false);
        assert_eq!(longer, each(1, 1, 7));
    }

    #[test]
    fn a_call_that_reaches_more_or_fewer_files_of_the_same_ask_is_a_repeat_as_far_as_both_reached()
    {
        let mut tripwire = Tripwire::default();
        let all: Vec<u64> = (1..=60).collect();
        let options = (false, false, false);
        // The budget reached 44 files, then (the first 44 stubbed, which cost little) all 60, then 37. The 16 files
        // the first call never reached are new to the run: counted 1.
        assert_eq!(
            call_asking(&mut tripwire, 9, &all[..44], options),
            each(1, 1, 44)
        );
        let second = call_asking(&mut tripwire, 9, &all, options);
        assert_eq!(second[..44], each(2, 44, 44)[..]);
        assert_eq!(second[44..], each(1, 1, 16)[..]);
        assert_eq!(
            call_asking(&mut tripwire, 9, &all[..37], options),
            each(3, 60, 37)
        );
        // A call of the run reached all 60 before: none of them is new now.
        assert_eq!(
            call_asking(&mut tripwire, 9, &all, options),
            each(4, 37, 60)
        );
        // Files no call of the run reached (the budget always left them out) are new when one is reached.
        let mut fresh_run = Tripwire::default();
        for round in 1..=3 {
            assert_eq!(
                call_asking(&mut fresh_run, 9, &all[..3], options),
                each(round, if round == 1 { 1 } else { 3 }, 3)
            );
        }
        let reached = call_asking(&mut fresh_run, 9, &all[..4], options);
        assert_eq!(reached[..3], each(4, 3, 3)[..]);
        assert_eq!(reached[3..], each(1, 1, 1)[..]);
        // A file both reached that answered otherwise: not a repeat from it on.
        let mut changed = all.clone();
        changed[20] = 999;
        let counts = call_asking(&mut tripwire, 9, &changed, options);
        assert_eq!(counts[..20], each(5, 60, 20)[..]);
        assert_eq!(counts[20..], each(1, 1, 40)[..]);
        // The same answers to another ask are another call.
        assert_eq!(
            call_asking(&mut tripwire, 8, &changed, options),
            each(1, 1, 60)
        );
    }

    #[test]
    fn a_call_whose_files_may_have_changed_is_not_warned_and_counts_as_it_turns_out() {
        let mut tripwire = Tripwire::default();
        let prints = [1, 2, 3, 4, 5, 6];
        call(&mut tripwire, &prints, false, false);
        call(&mut tripwire, &prints, false, false);
        // Touched, not changed: no count this call, but the call was a repeat, and the next one is its 4th.
        let touched = call_asking(&mut tripwire, 6, &prints, (false, false, true));
        assert_eq!(touched, each(1, 1, 6));
        assert_eq!(call(&mut tripwire, &prints, false, false), each(4, 6, 6));
        // Changed: the call is no repeat, and the run starts over from it.
        let changed = [1, 2, 3, 40, 5, 6];
        call_asking(&mut tripwire, 6, &changed, (false, false, true));
        assert_eq!(call(&mut tripwire, &changed, false, false), each(2, 6, 6));
    }

    #[test]
    fn a_failure_inside_a_call_is_one_of_its_answers_and_outside_breaks_the_run() {
        let mut tripwire = Tripwire::default();
        let with_failure = |tripwire: &mut Tripwire, failure: u64| {
            tripwire.begin_call(3, false, false);
            let first = tripwire.count("/w/a", 1, false);
            tripwire.answered(false);
            tripwire.other_answer("/w/missing", failure);
            let last = tripwire.count("/w/c", 3, false);
            tripwire.answered(false);
            tripwire.end_call();
            (first.count, last.count)
        };
        assert_eq!(with_failure(&mut tripwire, 99), (1, 1));
        assert_eq!(with_failure(&mut tripwire, 99), (2, 2));
        // Another answer from the same file: not a repeat past it.
        assert_eq!(with_failure(&mut tripwire, 98), (3, 1));
        // Outside a call, a failed read breaks a run of identical reads, and is a read of its own in a cycle.
        tripwire.clear();
        read(&mut tripwire, 5, false);
        assert_eq!(read(&mut tripwire, 5, false).count, 2);
        tripwire.other_answer("/w/missing", 99);
        assert_eq!(read(&mut tripwire, 5, false).count, 1);
        tripwire.other_answer("/w/missing", 99);
        assert_eq!(read(&mut tripwire, 5, false), Count { count: 3, cycle: 2 });
    }

    #[test]
    fn a_change_to_a_file_of_a_call_ends_the_run_and_another_file_does_not() {
        let mut tripwire = Tripwire::default();
        let prints = [1, 2, 3, 4, 5, 6];
        call(&mut tripwire, &prints, false, false);
        call(&mut tripwire, &prints, false, false);
        tripwire.forget_path(|path| path == "/w/elsewhere");
        assert_eq!(call(&mut tripwire, &prints, false, false), each(3, 6, 6));
        tripwire.forget_path(|path| path == "/w/4");
        assert_eq!(call(&mut tripwire, &prints, false, false), each(1, 1, 6));
        assert_eq!(call(&mut tripwire, &prints, false, false), each(2, 6, 6));
    }

    #[test]
    fn a_cycle_of_five_single_reads_is_found_and_of_six_is_not() {
        let mut tripwire = Tripwire::default();
        let counts = |tripwire: &mut Tripwire, length: u64| -> Vec<u32> {
            (0..6 * length)
                .map(|index| read(tripwire, 1_000 * length + index % length, false).count)
                .collect()
        };
        let five = counts(&mut tripwire, 5);
        // The cycle counts once it came round whole: at the fifth read of the second round. Past the entries
        // the history keeps, every round still counts one more.
        assert_eq!(five[..5], [1, 1, 1, 1, 1]);
        assert_eq!(five[5..10], [1, 1, 1, 1, 2]);
        assert_eq!(five[10..15], [3, 3, 3, 3, 3]);
        assert_eq!(five[25..], [6, 6, 6, 6, 6]);
        tripwire.clear();
        assert!(counts(&mut tripwire, 6).iter().all(|count| *count == 1));
        // A X A Y A Y A: the run of period 2 starts at the second A, whose third read the last A is.
        tripwire.clear();
        let reads: Vec<u32> = [1, 2, 1, 3, 1, 3, 1]
            .into_iter()
            .map(|print| read(&mut tripwire, print, false).count)
            .collect();
        assert_eq!(reads, [1, 1, 1, 1, 1, 2, 3]);
    }
}
