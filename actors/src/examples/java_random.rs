//! `java.util.Random` (and `scala.util.Random`, which wraps it): the 48-bit linear congruential
//! generator the examples seed with 42 (`new Random(42)` in SparkLR and SparkTC), so their data
//! and printed results are the ones the real programs make.

/// `java.util.Random`: the multiplier, addend and mask of its LCG (Random.java).
pub struct JavaRandom {
    seed: u64,
    next_next_gaussian: Option<f64>,
}

const MULTIPLIER: u64 = 0x5_DEEC_E66D;
const ADDEND: u64 = 0xB;
const MASK: u64 = (1 << 48) - 1;

impl JavaRandom {
    /// `new Random(seed)`: `initialScramble(seed) = (seed ^ multiplier) & mask`.
    pub fn new(seed: i64) -> JavaRandom {
        JavaRandom {
            seed: (seed as u64 ^ MULTIPLIER) & MASK,
            next_next_gaussian: None,
        }
    }

    /// `next(bits)`: the top `bits` of the new 48-bit state, as a signed int.
    fn next(&mut self, bits: u32) -> i32 {
        self.seed = (self.seed.wrapping_mul(MULTIPLIER).wrapping_add(ADDEND)) & MASK;
        (self.seed >> (48 - bits)) as i64 as i32
    }

    /// `nextInt(bound)` for a positive bound: a power of two takes the high bits; otherwise
    /// draws that would bias the result are rejected (`u - r + m < 0` overflows in Java).
    pub fn next_int(&mut self, bound: i32) -> i32 {
        let mut r = self.next(31);
        let m = bound - 1;
        if bound & m == 0 {
            return ((i64::from(bound) * i64::from(r)) >> 31) as i32;
        }
        let mut u = r;
        loop {
            r = u % bound;
            if u.wrapping_sub(r).wrapping_add(m) >= 0 {
                return r;
            }
            u = self.next(31);
        }
    }

    /// `nextDouble()`: 53 random bits scaled to [0, 1).
    pub fn next_double(&mut self) -> f64 {
        let hi = i64::from(self.next(26)) << 27;
        let lo = i64::from(self.next(27));
        (hi + lo) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// `nextGaussian()`: Marsaglia's polar method, each call pair sharing one draw.
    pub fn next_gaussian(&mut self) -> f64 {
        if let Some(g) = self.next_next_gaussian.take() {
            return g;
        }
        loop {
            let v1 = 2.0 * self.next_double() - 1.0;
            let v2 = 2.0 * self.next_double() - 1.0;
            let s = v1 * v1 + v2 * v2;
            if s < 1.0 && s != 0.0 {
                let multiplier = (-2.0 * strict_log(s) / s).sqrt();
                self.next_next_gaussian = Some(v2 * multiplier);
                return v1 * multiplier;
            }
        }
    }
}

/// `StrictMath.log`: fdlibm's `__ieee754_log` (e_log.c), which `Random.nextGaussian` calls; the
/// platform's `ln` differs from it in the last bit for about 7 % of arguments.
pub fn strict_log(x: f64) -> f64 {
    // e_log.c's constants, by their bit patterns (as its comments give them).
    const LN2_HI: f64 = f64::from_bits(0x3fe6_2e42_fee0_0000);
    const LN2_LO: f64 = f64::from_bits(0x3dea_39ef_3579_3c76);
    const TWO54: f64 = f64::from_bits(0x4350_0000_0000_0000);
    const THIRD: f64 = f64::from_bits(0x3fd5_5555_5555_5555);
    const LG: [f64; 7] = [
        f64::from_bits(0x3fe5_5555_5555_5593),
        f64::from_bits(0x3fd9_9999_9997_fa04),
        f64::from_bits(0x3fd2_4924_9422_9359),
        f64::from_bits(0x3fcc_71c5_1d8e_78af),
        f64::from_bits(0x3fc7_4664_96cb_03de),
        f64::from_bits(0x3fc3_9a09_d078_c69f),
        f64::from_bits(0x3fc2_f112_df3e_5244),
    ];
    let hi = |x: f64| (x.to_bits() >> 32) as i32;
    let mut x = x;
    let mut hx = hi(x);
    let lx = x.to_bits() as u32;
    let mut k: i32 = 0;
    if hx < 0x0010_0000 {
        if ((hx & 0x7fff_ffff) as u32 | lx) == 0 {
            return f64::NEG_INFINITY;
        }
        if hx < 0 {
            return f64::NAN;
        }
        k -= 54;
        x *= TWO54;
        hx = hi(x);
    }
    if hx >= 0x7ff0_0000 {
        return x + x;
    }
    k += (hx >> 20) - 1023;
    hx &= 0x000f_ffff;
    let i = (hx + 0x95f64) & 0x10_0000;
    let high = (hx | (i ^ 0x3ff0_0000)) as u32;
    x = f64::from_bits((u64::from(high) << 32) | (x.to_bits() & 0xffff_ffff));
    k += i >> 20;
    let f = x - 1.0;
    let dk = f64::from(k);
    if (0x000f_ffff & (2 + hx)) < 3 {
        if f == 0.0 {
            return if k == 0 {
                0.0
            } else {
                dk * LN2_HI + dk * LN2_LO
            };
        }
        let r = f * f * (0.5 - THIRD * f);
        return if k == 0 {
            f - r
        } else {
            dk * LN2_HI - ((r - dk * LN2_LO) - f)
        };
    }
    let s = f / (2.0 + f);
    let z = s * s;
    let w = z * z;
    let t1 = w * (LG[1] + w * (LG[3] + w * LG[5]));
    let t2 = z * (LG[0] + w * (LG[2] + w * (LG[4] + w * LG[6])));
    let r = t2 + t1;
    if ((hx - 0x6147a) | (0x6b851 - hx)) > 0 {
        let hfsq = 0.5 * f * f;
        if k == 0 {
            f - (hfsq - s * (hfsq + r))
        } else {
            dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f)
        }
    } else if k == 0 {
        f - s * (f - r)
    } else {
        dk * LN2_HI - ((s * (f - r) - dk * LN2_LO) - f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Random.java with seed 42, as a JVM prints it: nextInt(10) gives 0, 3, 8, 4, 0;
    // nextDouble() 0.7275636800328681; nextGaussian() 1.1419053154730547 (with StrictMath.log:
    // the platform's log gives 1.141905315473055, one ulp off).
    #[test]
    fn seed_42_matches_java() {
        let mut r = JavaRandom::new(42);
        let ints: Vec<i32> = (0..5).map(|_| r.next_int(10)).collect();
        assert_eq!(ints, [0, 3, 8, 4, 0]);
        assert_eq!(JavaRandom::new(42).next_double(), 0.7275636800328681);
        assert_eq!(JavaRandom::new(42).next_gaussian(), 1.1419053154730547);
    }
}
