pub mod sse;
