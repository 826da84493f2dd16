//! A bounded pool for the cryptography of requests: token evaluation at the
//! issuer, token verification at the origin.
//!
//! Both cost far more than anything else a request does (a type-1
//! verification is a P-384 scalar multiplication and a hash to the curve; a
//! type-2 evaluation an RSA-2048 private-key operation), and both can be
//! asked for by anyone: a forged token whose challenge digest and key id are
//! right (both public) reaches the verification. So they run off the async
//! runtime, on tokio's blocking threads, at most `workers` at once, and the
//! pool sheds rather than queues without end:
//!
//! 1. **Admission** ([`Pool::admit`]): a request takes one of `workers +
//!    queue` places with `try_acquire`, or is refused at once (503 with
//!    `Retry-After`). The issuer reads the request body only once admitted,
//!    so bodies in memory are bounded by the places too.
//! 2. **Execution** ([`Admitted::run`]): the admitted job waits for one of
//!    `workers` threads, at most `queue_wait`; a job that waited longer is
//!    refused (503) instead of answering late.
//!
//! A request's wait is then at most `queue_wait`, and in practice the time
//! the jobs ahead of it take: `queue` of them at most, spread over `workers`
//! threads. The async runtime's own threads never run cryptography, so they
//! keep accepting connections, parsing and talking to the replay store under
//! a flood (the OS shares the cores between both).

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::metrics::Metrics;

/// How the pool is sized.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolConfig {
    /// Jobs that run at once (threads busy with cryptography).
    pub workers: usize,
    /// Jobs admitted beyond those running, waiting for a thread.
    pub queue: usize,
    /// The longest an admitted job waits for a thread before it is refused.
    pub queue_wait: Duration,
}

impl Default for PoolConfig {
    /// One worker per core, 32 places in the queue per worker, 250 ms.
    fn default() -> Self {
        let cores = std::thread::available_parallelism().map_or(2, std::num::NonZero::get);
        Self { workers: cores, queue: 32 * cores, queue_wait: Duration::from_millis(250) }
    }
}

/// The pool refused the job: saturated. Answer 503 with `Retry-After`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Busy;

/// The bounded pool; cheap to clone.
#[derive(Clone)]
pub struct Pool {
    admission: Arc<Semaphore>,
    workers: Arc<Semaphore>,
    queue_wait: Duration,
    metrics: Arc<Metrics>,
}

impl std::fmt::Debug for Pool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pool")
            .field("admission_free", &self.admission.available_permits())
            .field("workers_free", &self.workers.available_permits())
            .finish_non_exhaustive()
    }
}

/// A place in the pool (step 1): hold it while the request body is read,
/// then [`run`](Admitted::run) the job.
#[derive(Debug)]
pub struct Admitted {
    _place: OwnedSemaphorePermit,
    pool: Pool,
}

impl Drop for Admitted {
    fn drop(&mut self) {
        self.pool.metrics.pool_in_flight.dec();
    }
}

impl Pool {
    /// A pool of `config.workers` threads and `config.queue` waiting places
    /// (each at least 1).
    pub fn new(config: PoolConfig, metrics: Arc<Metrics>) -> Self {
        let workers = config.workers.max(1);
        Self {
            admission: Arc::new(Semaphore::new(workers.saturating_add(config.queue).max(1))),
            workers: Arc::new(Semaphore::new(workers)),
            queue_wait: config.queue_wait,
            metrics,
        }
    }

    /// Takes a place, or [`Busy`] at once if every place is taken.
    pub fn admit(&self) -> Result<Admitted, Busy> {
        match Arc::clone(&self.admission).try_acquire_owned() {
            Ok(place) => {
                self.metrics.pool_in_flight.inc();
                Ok(Admitted { _place: place, pool: self.clone() })
            }
            Err(_) => {
                self.metrics.pool_shed.get_or_create(&[("stage", "admission")]).inc();
                Err(Busy)
            }
        }
    }

    /// [`admit`](Self::admit), then [`run`](Admitted::run).
    pub async fn run<T: Send + 'static>(&self, job: impl FnOnce() -> T + Send + 'static) -> Result<T, Busy> {
        self.admit()?.run(job).await
    }
}

impl Admitted {
    /// Runs `job` on a blocking thread once one of the pool's workers is
    /// free; [`Busy`] if none was free within the queue wait.
    pub async fn run<T: Send + 'static>(self, job: impl FnOnce() -> T + Send + 'static) -> Result<T, Busy> {
        let pool = self.pool.clone();
        let worker = match tokio::time::timeout(pool.queue_wait, Arc::clone(&pool.workers).acquire_owned()).await {
            Ok(Ok(worker)) => worker,
            // Timed out, or the semaphore closed (it never is).
            _ => {
                pool.metrics.pool_shed.get_or_create(&[("stage", "queue")]).inc();
                return Err(Busy);
            }
        };
        let handle = tokio::task::spawn_blocking(move || {
            let out = job();
            drop(worker);
            drop(self);
            out
        });
        // A job that panicked is refused like a saturated pool: the request
        // fails closed, the process goes on.
        handle.await.map_err(|_| Busy)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn pool(workers: usize, queue: usize, wait_ms: u64) -> Pool {
        Pool::new(PoolConfig { workers, queue, queue_wait: Duration::from_millis(wait_ms) }, Arc::new(Metrics::new()))
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn admission_is_bounded_and_refuses_at_once() {
        let p = pool(1, 2, 5_000);
        let places: Vec<_> = (0..3).map(|_| p.admit().unwrap()).collect();
        let t = std::time::Instant::now();
        assert_eq!(p.admit().err(), Some(Busy));
        assert!(t.elapsed() < Duration::from_millis(50));
        drop(places);
        assert!(p.admit().is_ok());
        assert!(p.metrics.render().contains("pat_pool_shed_total{stage=\"admission\"} 1"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_job_waits_for_a_worker_at_most_the_queue_wait() {
        let p = pool(1, 4, 100);
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let blocker = tokio::spawn({
            let p = p.clone();
            async move { p.run(move || rx.recv().unwrap()).await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        let t = std::time::Instant::now();
        assert_eq!(p.run(|| 1).await, Err(Busy));
        let waited = t.elapsed();
        assert!(waited >= Duration::from_millis(90) && waited < Duration::from_millis(1000), "{waited:?}");
        tx.send(()).unwrap();
        blocker.await.unwrap().unwrap();
        assert_eq!(p.run(|| 2).await, Ok(2));
        assert!(p.metrics.render().contains("pat_pool_shed_total{stage=\"queue\"} 1"));
        assert!(p.metrics.render().contains("pat_pool_in_flight 0"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn at_most_workers_jobs_run_at_once() {
        let p = pool(2, 16, 5_000);
        let running = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let peak = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let jobs: Vec<_> = (0..12)
            .map(|_| {
                let (p, running, peak) = (p.clone(), Arc::clone(&running), Arc::clone(&peak));
                tokio::spawn(async move {
                    p.run(move || {
                        use std::sync::atomic::Ordering::SeqCst;
                        let now = running.fetch_add(1, SeqCst) + 1;
                        peak.fetch_max(now, SeqCst);
                        std::thread::sleep(Duration::from_millis(20));
                        running.fetch_sub(1, SeqCst);
                    })
                    .await
                })
            })
            .collect();
        for j in jobs {
            j.await.unwrap().unwrap();
        }
        assert_eq!(peak.load(std::sync::atomic::Ordering::SeqCst), 2);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_panicking_job_is_refused_and_frees_its_place() {
        let p = pool(1, 0, 1_000);
        #[allow(clippy::panic)]
        let out = p.run(|| -> u8 { panic!("job failed") }).await;
        assert_eq!(out, Err(Busy));
        assert_eq!(p.run(|| 3).await, Ok(3));
    }
}
