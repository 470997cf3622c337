// The floor for launching a process on this machine: a small C program, no runtime,
// creating children of /bin/true (or argv[3]) with vfork + execve + waitpid on a few
// threads. bench/real-launch.mjs builds it with cc and runs it beside Node.
//   c-floor N THREADS [FILE]  ->  one JSON line: launches, seconds, per_second
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char** environ;
static atomic_long remaining;
static const char* file = "/bin/true";
static atomic_int failures;

static void* lane(void* unused) {
  (void)unused;
  char* argv[] = {(char*)file, NULL};
  while (atomic_fetch_sub(&remaining, 1) > 0) {
    // vfork suspends this thread only until the child has exec'd: the cheapest
    // creation there is (no page tables copied), as the helper's clone(CLONE_VFORK).
    pid_t pid = vfork();
    if (pid == 0) {
      execve(file, argv, environ);
      _exit(127);
    }
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      atomic_fetch_add(&failures, 1);
    }
  }
  return NULL;
}

int main(int argc, char** argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: c-floor N THREADS [FILE]\n");
    return 2;
  }
  const long n = atol(argv[1]);
  const int threads = atoi(argv[2]);
  if (argc > 3) file = argv[3];
  if (n <= 0 || threads <= 0 || threads > 256) {
    fprintf(stderr, "c-floor: N and THREADS must be positive (THREADS at most 256)\n");
    return 2;
  }
  atomic_store(&remaining, n);
  pthread_t ids[256];
  struct timespec t0, t1;
  clock_gettime(CLOCK_MONOTONIC, &t0);
  for (int i = 0; i < threads; i++) {
    if (pthread_create(&ids[i], NULL, lane, NULL) != 0) {
      perror("c-floor: pthread_create");
      return 1;
    }
  }
  for (int i = 0; i < threads; i++) pthread_join(ids[i], NULL);
  clock_gettime(CLOCK_MONOTONIC, &t1);
  const double seconds = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
  if (atomic_load(&failures) > 0) {
    fprintf(stderr, "c-floor: %d launches of %s failed\n", atomic_load(&failures), file);
    return 1;
  }
  printf("{\"launches\":%ld,\"seconds\":%.6f,\"per_second\":%.1f}\n", n, seconds, (double)n / seconds);
  return 0;
}
