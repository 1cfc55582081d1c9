//! A synthetic Kineto-like (PyTorch profiler) Chrome JSON trace of a requested size, for the
//! import benchmark (`trialscope bench --generate-kineto`, issue #9 item 6) and the performance
//! tests; never committed as data. Shape follows trace-formats.md §9: metadata keys first,
//! `traceEvents` with nested `cpu_op` / `python_function` X events on two host threads, GPU
//! `kernel` X events with collective args, `[memory]` instants, `ac2g` flows, and `M` name
//! events; ts/dur printed as `<µs>.<3 digits>`. Deterministic: the same size gives the same bytes.

use std::fmt::Write as _;
use std::io;

/// Deterministic generator state (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

const OPS: &[&str] = &[
    "aten::mm",
    "aten::add",
    "aten::relu",
    "aten::linear",
    "aten::empty",
    "aten::copy_",
    "record_param_comms",
    "c10d::allreduce_",
    "aten::addmm",
    "aten::t",
];

/// A Kineto-like trace of at least `target_bytes` bytes (it ends after the event that passes the
/// target, a few hundred bytes beyond it), held in memory. Returns the bytes and the number of
/// events (`traceEvents` elements) written.
pub fn kineto_like(target_bytes: usize) -> (Vec<u8>, u64) {
    let mut out = Vec::with_capacity(target_bytes + 4096);
    // Writing to a `Vec` cannot fail.
    let events = write_kineto_like(&mut out, target_bytes as u64).map_or(0, |(_, events)| events);
    (out, events)
}

/// Writes the trace of [`kineto_like`] to `out` as it is generated (memory stays at one batch of
/// lines, so a 1 GB file costs no 1 GB buffer). Returns the bytes and the number of events
/// written. Errors: those of `out`.
pub fn write_kineto_like(out: &mut impl io::Write, target_bytes: u64) -> io::Result<(u64, u64)> {
    let mut s = String::with_capacity(FLUSH_BYTES + 4096);
    let mut written: u64 = 0;
    s.push_str(
        "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [{\"id\": 0, \"name\": \"Synthetic GPU\", \"totalGlobalMem\": 85899345920}],\n  \"distributedInfo\": {\"backend\": \"nccl\", \"rank\": 3, \"world_size\": 8},\n  \"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 1790857026000000000,\n  \"traceEvents\": [\n",
    );
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut ts: u64 = 5_090_832_481_421_792; // ns, printed as µs with 3 decimals
    let mut n: u64 = 0;
    let mut ext: u64 = 1;
    let mut alloc: i64 = 0;
    for (pid, tid, name) in [
        (1790, 1790, "thread 1790 (python)"),
        (1790, 1801, "thread 1801 (pt_autograd_0)"),
        (0, 7, "stream 7"),
    ] {
        let _ = writeln!(
            s,
            "  {{\"ph\": \"M\", \"name\": \"thread_name\", \"pid\": {pid}, \"tid\": {tid}, \"args\": {{\"name\": \"{name}\"}}}},"
        );
        n += 1;
    }
    let us = |ns: u64| format!("{}.{:03}", ns / 1000, ns % 1000);
    loop {
        if written + s.len() as u64 >= target_bytes {
            break;
        }
        if s.len() >= FLUSH_BYTES {
            out.write_all(s.as_bytes())?;
            written += s.len() as u64;
            s.clear();
        }
        let tid = if rng.next() % 4 == 0 { 1801 } else { 1790 };
        // A python frame enclosing an op enclosing a child op.
        let outer = 20_000 + rng.next() % 50_000;
        let _ = writeln!(
            s,
            "  {{\"ph\": \"X\", \"cat\": \"python_function\", \"name\": \"torch/nn/modules/module.py({}): _call_impl\", \"pid\": 1790, \"tid\": {tid}, \"ts\": {}, \"dur\": {}, \"args\": {{\"Python id\": {}, \"Python parent id\": {}}}}},",
            1700 + rng.next() % 100,
            us(ts),
            us(outer),
            n,
            n.saturating_sub(1)
        );
        let op = OPS[(rng.next() % OPS.len() as u64) as usize];
        let _ = writeln!(
            s,
            "  {{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"{op}\", \"pid\": 1790, \"tid\": {tid}, \"ts\": {}, \"dur\": {}, \"args\": {{\"External id\": {ext}, \"Record function id\": 0, \"Ev Idx\": {n}, \"Input Dims\": [[{}, {}], [{}]], \"Input type\": [\"float\", \"float\"], \"Sequence number\": {}, \"Fwd thread id\": 0}}}},",
            us(ts + 1_000),
            us(outer - 2_000),
            rng.next() % 4096,
            rng.next() % 4096,
            rng.next() % 4096,
            rng.next() % 100_000
        );
        let _ = writeln!(
            s,
            "  {{\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": \"cudaLaunchKernel\", \"pid\": 1790, \"tid\": {tid}, \"ts\": {}, \"dur\": {}, \"args\": {{\"External id\": {ext}, \"cbid\": 211, \"correlation\": {ext}}}}},",
            us(ts + 2_000),
            us(3_000)
        );
        let _ = writeln!(
            s,
            "  {{\"ph\": \"s\", \"id\": {ext}, \"pid\": 1790, \"tid\": {tid}, \"ts\": {}, \"cat\": \"ac2g\", \"name\": \"ac2g\"}},",
            us(ts + 2_000)
        );
        let kname = if op == "record_param_comms" {
            "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
        } else {
            "void at::native::vectorized_elementwise_kernel<4, at::native::FillFunctor<float>>"
        };
        let _ = writeln!(
            s,
            "  {{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"{kname}\", \"pid\": 0, \"tid\": 7, \"ts\": {}, \"dur\": {}, \"args\": {{\"External id\": {ext}, \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": {ext}, \"registers per thread\": 32, \"shared memory\": 0, \"grid\": [160, 1, 1], \"block\": [128, 1, 1], \"est. achieved occupancy %\": 100}}}},",
            us(ts + 6_000),
            us(4_000 + rng.next() % 10_000)
        );
        let _ = writeln!(
            s,
            "  {{\"ph\": \"f\", \"id\": {ext}, \"pid\": 0, \"tid\": 7, \"ts\": {}, \"cat\": \"ac2g\", \"name\": \"ac2g\", \"bp\": \"e\"}},",
            us(ts + 6_000)
        );
        let bytes = (rng.next() % 1_048_576) as i64 - 400_000;
        alloc = (alloc + bytes).max(0);
        let _ = writeln!(
            s,
            "  {{\"ph\": \"i\", \"cat\": \"cpu_instant_event\", \"s\": \"t\", \"name\": \"[memory]\", \"pid\": 1790, \"tid\": {tid}, \"ts\": {}, \"args\": {{\"Total Reserved\": 2097152000, \"Total Allocated\": {alloc}, \"Bytes\": {bytes}, \"Device Id\": 0, \"Device Type\": 1, \"Addr\": {}, \"Ev Idx\": {n}}}}},",
            us(ts + 1_500),
            139_800_000_000_000u64 + rng.next() % 1_000_000_000
        );
        n += 7;
        ext += 1;
        ts += outer + 1_000 + rng.next() % 5_000;
    }
    s.push_str(
        "  {\"name\": \"Record Window End\", \"ph\": \"i\", \"s\": \"g\", \"pid\": \"\", \"tid\": \"\", \"ts\": 5090858560475.472}\n],\n  \"traceName\": \"synthetic.pt.trace.json\"\n}\n",
    );
    out.write_all(s.as_bytes())?;
    written += s.len() as u64;
    Ok((written, n + 1))
}

/// Text generated between writes to the output.
const FLUSH_BYTES: usize = 1 << 20;
