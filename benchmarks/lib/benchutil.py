"""Helpers shared by the benchmark scripts (compare, report, corpus): the machine, medians, tools."""
import datetime
import os
import platform
import shutil
import statistics
import subprocess
import sys

BENCH_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_DIR = os.path.dirname(BENCH_DIR)
DEFAULT_CORPUS = os.path.normpath(os.path.join(REPO_DIR, "..", "shared", "bench", "corpus"))
RESULTS_DIR = os.path.join(BENCH_DIR, "results")


def say(message):
    """A progress or status line on stderr, so stdout stays machine-readable."""
    print(message, file=sys.stderr, flush=True)


def machine():
    """The machine the figures belong to: CPU model, cores, kernel, memory, date."""
    cpu = "unknown"
    try:
        with open("/proc/cpuinfo") as info:
            for line in info:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    memory = 0.0
    try:
        with open("/proc/meminfo") as info:
            memory = int(info.readline().split()[1]) / 1048576
    except (OSError, ValueError, IndexError):
        pass
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "kernel": f"{platform.system()} {platform.release()}",
        "memoryGiB": round(memory, 1),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }


def median(values):
    return statistics.median(values) if values else 0.0


def apt_install(packages, why):
    """Installs Debian packages (as root), saying so; returns whether it worked."""
    say(f"installing {' '.join(packages)} with apt-get ({why})")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    subprocess.run(["apt-get", "update", "-qq"], env=env, check=False)
    done = subprocess.run(["apt-get", "install", "-y", "-qq", *packages], env=env,
                          stdout=subprocess.DEVNULL, check=False)
    return done.returncode == 0


def pip_install(package, why):
    say(f"installing {package} with pip ({why})")
    done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", package], check=False)
    return done.returncode == 0


def which(program):
    return shutil.which(program)
