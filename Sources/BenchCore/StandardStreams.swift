import Foundation

/// What the parent does first, so that where its stdout and stderr lead cannot end a run.
package enum StandardStreams {
    /// Opens /dev/null on each of stdin, stdout and stderr that is closed (`2>&-`, `>&-`):
    /// otherwise the first file the run opens gets that descriptor, and the progress lines or
    /// the summary are written into it (trials.csv, a fixture).
    package static func reopenClosed() {
        for descriptor in [STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO]
        where fcntl(descriptor, F_GETFD) == -1 && errno == EBADF {
            let null = open("/dev/null", descriptor == STDIN_FILENO ? O_RDONLY : O_WRONLY)
            if null >= 0 && null != descriptor {
                dup2(null, descriptor)
                close(null)
            }
        }
    }

    /// A reader that left (`bench | head -1`, `2>&1 | head -c 20`) makes writes fail with EPIPE
    /// instead of killing the process with SIGPIPE: the run goes on and writes every file.
    /// The measured children keep the default (ChildProcess resets it when it spawns them).
    package static func ignoreBrokenPipes() {
        signal(SIGPIPE, SIG_IGN)
    }
}
