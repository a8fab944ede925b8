//! Micro-benchmark of `Session::served` (issue #34): the read of a session's
//! scope on the call path, before (a field) and after (an atomic, then the
//! field; the lock only for a session whose roots chose a profile). A copy of
//! the shape of the code in crates/switchboard-core/src/sessions/choice.rs, so it
//! builds alone: `rustc -O --edition 2021 bench/micro/served_scope.rs -o /tmp/served && /tmp/served`.

use std::borrow::Cow;
use std::hint::black_box;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::Instant;
#[derive(Clone, PartialEq, Debug)]
#[allow(dead_code)]
enum Scope { Merged, Server(Arc<str>), Profile(Arc<str>) }
struct S { scope: Scope, chosen: RwLock<Option<Scope>>, has: AtomicBool }
impl S {
    fn scope(&self) -> &Scope { &self.scope }
    fn served(&self) -> Cow<'_, Scope> {
        if !self.has.load(Ordering::Acquire) { return Cow::Borrowed(&self.scope); }
        let c = self.chosen.read().unwrap_or_else(|e| e.into_inner());
        Cow::Owned(c.clone().unwrap_or_else(|| self.scope.clone()))
    }
}
fn main() {
    let n = 50_000_000u64;
    let s = black_box(S { scope: Scope::Merged, chosen: RwLock::new(None), has: AtomicBool::new(false) });
    for round in 0..3 {
        let t = Instant::now(); let mut k = 0u64;
        for _ in 0..n { if matches!(black_box(&s).scope(), Scope::Merged) { k += 1 } }
        let a = t.elapsed().as_secs_f64() * 1e9 / n as f64;
        let t = Instant::now();
        for _ in 0..n { if matches!(&*black_box(&s).served(), Scope::Merged) { k += 1 } }
        let b = t.elapsed().as_secs_f64() * 1e9 / n as f64;
        s.chosen.write().unwrap().replace(Scope::Profile(Arc::from("acme")));
        s.has.store(true, Ordering::Release);
        let t = Instant::now();
        for _ in 0..n { if matches!(&*black_box(&s).served(), Scope::Profile(_)) { k += 1 } }
        let c = t.elapsed().as_secs_f64() * 1e9 / n as f64;
        s.has.store(false, Ordering::Release);
        println!("round {round}: field {a:.2} ns, served (no roots) {b:.2} ns, served (chosen) {c:.2} ns [{k}]");
    }
}
