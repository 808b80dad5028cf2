//! assentd
