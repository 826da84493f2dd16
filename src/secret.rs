//! The one way this crate writes a secret newtype.
//!
//! `secret_newtype!` gives a type whose fields are all secret the
//! secret-handling impls the house rules ask for: constant-time equality over
//! every field (`subtle`), zeroization of every field on drop with
//! `ZeroizeOnDrop`, and a `Debug` that prints only the type name. The type
//! must not be `Copy` or `Clone` (checked by `tests/secrets.rs`).
//!
//! ```ignore
//! secret_newtype!(BlindScalar { 0 });
//! secret_newtype!(impl[S: Suite] SecretKey<S> { 0 });
//! secret_newtype!(impl[const L: usize] RsaBlindingState<L> { r_inv });
//! secret_newtype!(EncapSecret { enc, secret });
//! ```
//!
//! Types that also hold public parts (keys with their public key, request
//! states with their token input) write these impls by hand, since their
//! `Debug` shows the public parts and their equality treats them as public.

macro_rules! secret_newtype {
    ($name:ident { $($field:tt),+ }) => {
        secret_newtype!(impl[] $name<> { $($field),+ });
    };
    (impl[$($generics:tt)*] $name:ident < $($param:ident),* > { $($field:tt),+ }) => {
        impl<$($generics)*> subtle::ConstantTimeEq for $name<$($param),*> {
            fn ct_eq(&self, other: &Self) -> subtle::Choice {
                #[allow(unused_imports)] // the caller may have it in scope already
                use subtle::ConstantTimeEq as _;
                let mut eq = subtle::Choice::from(1);
                // Method calls, so that arrays compare as slices.
                $(eq &= self.$field.ct_eq(&other.$field);)+
                eq
            }
        }

        impl<$($generics)*> Drop for $name<$($param),*> {
            fn drop(&mut self) {
                $(zeroize::Zeroize::zeroize(&mut self.$field);)+
            }
        }

        impl<$($generics)*> zeroize::ZeroizeOnDrop for $name<$($param),*> {}

        impl<$($generics)*> core::fmt::Debug for $name<$($param),*> {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(stringify!($name))
            }
        }
    };
}
