//! Which CPUs the generator and the servers run on: on a machine of two cores, a server
//! sharing its cores with the generator would make each delay the other, and the
//! generator's lateness would be counted as the server's latency.

/// The generator on the first CPU this process may use, the servers on the others.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Split {
    pub generator: Vec<usize>,
    pub servers: Vec<usize>,
}

impl Split {
    /// The split of the CPUs this process may run on, or `None` with fewer than two.
    pub fn of_this_process() -> Option<Split> {
        Split::of(&allowed().ok()?)
    }

    fn of(allowed: &[usize]) -> Option<Split> {
        match allowed {
            [generator, servers @ ..] if !servers.is_empty() => Some(Split {
                generator: vec![*generator],
                servers: servers.to_vec(),
            }),
            _ => None,
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "generator on CPU {:?}, servers on {:?}",
            self.generator, self.servers
        )
    }
}

/// The CPUs the calling thread may run on.
fn allowed() -> std::io::Result<Vec<usize>> {
    // SAFETY: sched_getaffinity writes into the zeroed set it is given.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok((0..libc::CPU_SETSIZE as usize)
            .filter(|&cpu| libc::CPU_ISSET(cpu, &set))
            .collect())
    }
}

/// Restricts the calling thread (and the threads it starts afterwards) to `cpus`.
/// Async-signal-safe (one system call), so a child may call it between fork and exec.
pub fn pin(cpus: &[usize]) -> std::io::Result<()> {
    // SAFETY: the set is zeroed and filled within its size; pid 0 is the calling thread.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        for &cpu in cpus {
            libc::CPU_SET(cpu, &mut set);
        }
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_generator_takes_the_first_cpu_and_the_servers_the_rest() {
        assert_eq!(Split::of(&[3]), None);
        assert_eq!(
            Split::of(&[2, 5, 7]),
            Some(Split {
                generator: vec![2],
                servers: vec![5, 7]
            })
        );
    }

    #[test]
    fn a_pinned_thread_runs_only_where_it_was_pinned() {
        let last = *allowed().expect("affinity").last().expect("a CPU");
        let after = std::thread::spawn(move || {
            pin(&[last]).expect("sched_setaffinity");
            allowed().expect("affinity")
        })
        .join()
        .expect("thread");
        assert_eq!(after, vec![last]);
    }
}
