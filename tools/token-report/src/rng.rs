//! A small seeded PRNG (SplitMix64): the corpus and the window split depend on the seed only.

/// SplitMix64: fast, deterministic, good enough for generating test text.
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`, mixed with `stream` so that each corpus kind has its own sequence.
    pub fn new(seed: u64, stream: &str) -> Rng {
        let mut state = seed ^ 0x9e37_79b9_7f4a_7c15;
        for byte in stream.bytes() {
            state = (state ^ u64::from(byte)).wrapping_mul(0x0100_0000_01b3);
        }
        Rng(state)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `low..=high`.
    pub fn range(&mut self, low: u64, high: u64) -> u64 {
        low + self.next_u64() % (high - low + 1)
    }

    /// A `usize` in `low..=high`.
    pub fn between(&mut self, low: usize, high: usize) -> usize {
        self.range(low as u64, high as u64) as usize
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }

    /// A uniform pick.
    pub fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
        items[(self.next_u64() % items.len() as u64) as usize]
    }

    /// A pick biased to the front of the list (roughly Zipf-like), as word frequencies are.
    pub fn pick_zipf<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
        let n = items.len() as f64;
        let u = (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
        // Inverse of a 1/x density over 1..=n+1.
        let index = ((n + 1.0).powf(u) - 1.0) as usize;
        items[index.min(items.len() - 1)]
    }

    /// A float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}
