//! `--grid X[,Y[,Z]]` and `--block X[,Y[,Z]]`: a launch dimension as given on the command line.

use std::fmt;
use std::str::FromStr;

/// Blocks in a grid, or threads in a block, in x, y and z (the dimensions left out are 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dims(pub [u32; 3]);

impl Dims {
    /// The number of blocks or threads: the product of the three.
    pub fn count(self) -> u64 {
        self.0.iter().map(|&d| u64::from(d)).product()
    }
}

impl FromStr for Dims {
    type Err = String;

    fn from_str(text: &str) -> Result<Dims, String> {
        let parts: Vec<&str> = text.split(',').map(str::trim).collect();
        if parts.len() > 3 {
            return Err(format!(
                "`{text}`: give X, X,Y or X,Y,Z (at most three numbers)"
            ));
        }
        let mut dims = [1u32; 3];
        for (axis, (part, slot)) in ["x", "y", "z"].iter().zip(parts.iter().zip(&mut dims)) {
            *slot = part
                .parse()
                .map_err(|_| format!("`{text}`: {axis} is `{part}`, not a whole number"))?;
            if *slot == 0 {
                return Err(format!(
                    "`{text}`: {axis} is 0; every dimension is at least 1"
                ));
            }
        }
        Ok(Dims(dims))
    }
}

impl fmt::Display for Dims {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            [x, 1, 1] => write!(f, "{x}"),
            [x, y, 1] => write!(f, "{x},{y}"),
            [x, y, z] => write!(f, "{x},{y},{z}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Dims;

    #[test]
    fn parses_one_two_and_three_dimensions() {
        assert_eq!("7".parse(), Ok(Dims([7, 1, 1])));
        assert_eq!("32,8".parse(), Ok(Dims([32, 8, 1])));
        assert_eq!("4, 2, 3".parse::<Dims>().map(Dims::count), Ok(24));
        assert_eq!(Dims([32, 8, 1]).to_string(), "32,8");
    }

    #[test]
    fn refuses_zero_words_and_four_numbers() {
        assert!("0".parse::<Dims>().unwrap_err().contains("x is 0"));
        assert!("8,0".parse::<Dims>().unwrap_err().contains("y is 0"));
        assert!("8,a"
            .parse::<Dims>()
            .unwrap_err()
            .contains("`a`, not a whole number"));
        assert!("1,2,3,4"
            .parse::<Dims>()
            .unwrap_err()
            .contains("at most three"));
    }
}
