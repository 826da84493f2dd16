//! Flash footprint of the type 0x0005 client role alone: request (random
//! blind) and finalize (proof verification, unblinding), on one vector case.
#![no_std]
#![no_main]

use pat::wire::token_type::PrivateRistretto255;
use pat_nostd_check::{private_client_role, vectors};

pat_nostd_check::footprint_main!(|| private_client_role::<PrivateRistretto255>(core::hint::black_box(
    &vectors::TYPE5[0]
))
.is_ok());
