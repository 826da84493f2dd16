//! Flash footprint of the type 0x0001 client role alone: request (random
//! blind) and finalize (proof verification, unblinding), on one vector case.
#![no_std]
#![no_main]

use pat::wire::token_type::PrivateP384;
use pat_nostd_check::{private_client_role, vectors};

pat_nostd_check::footprint_main!(
    || private_client_role::<PrivateP384>(core::hint::black_box(&vectors::TYPE1[0])).is_ok()
);
