"""`pip install .` (pyproject.toml): puts liblampsim.so inside the package and the `lampsim` command with
its presets (lampsim/_prefix), taken from $LAMPSIM_LIB and $LAMPSIM_PREFIX (a `cmake --install` tree) or
built with CMake into build/pip (CMAKE_ARGS from the environment are passed on). The version is
CMakeLists.txt's project(VERSION), the one the library reports."""
import os
import re
import shutil
import subprocess

from setuptools import setup
from setuptools.command.build_py import build_py
from wheel.bdist_wheel import bdist_wheel

ROOT = os.path.dirname(os.path.abspath(__file__))


def cmake_version():
    with open(os.path.join(ROOT, "CMakeLists.txt")) as f:
        return re.search(r"project\(lampsim VERSION ([0-9.]+)", f.read()).group(1)


BUILD = os.path.join(ROOT, "build", "pip", "cmake")


def cmake_build():
    """Everything built with CMake into build/pip/cmake and installed into build/pip/prefix; the prefix."""
    args = os.environ.get("CMAKE_ARGS", "").split()
    prefix = os.path.join(ROOT, "build", "pip", "prefix")
    subprocess.check_call(["cmake", "-S", ROOT, "-B", BUILD, "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_TESTING=OFF"] + args)
    subprocess.check_call(["cmake", "--build", BUILD, "-j", str(os.cpu_count() or 2)])
    subprocess.check_call(["cmake", "--install", BUILD, "--prefix", prefix])
    return prefix


def sources():
    """(liblampsim.so, install prefix with bin/lampsim and share/lampsim or None): $LAMPSIM_LIB and
    $LAMPSIM_PREFIX (a `cmake --install` tree) where given, else both from one CMake build."""
    lib, prefix = os.environ.get("LAMPSIM_LIB"), os.environ.get("LAMPSIM_PREFIX")
    if lib and not os.path.isfile(lib):
        raise SystemExit("LAMPSIM_LIB=%s: no such file" % lib)
    if prefix and not os.path.isfile(os.path.join(prefix, "bin", "lampsim")):
        raise SystemExit("LAMPSIM_PREFIX=%s: no bin/lampsim there (cmake --install BUILD --prefix DIR)" % prefix)
    if not lib and not prefix:
        prefix = cmake_build()
        lib = os.path.join(BUILD, "liblampsim.so")
    elif not lib:
        raise SystemExit("LAMPSIM_PREFIX without LAMPSIM_LIB: give both, or neither to build both")
    return lib, prefix


class BuildPyWithLibrary(build_py):
    """The package with liblampsim.so and, where there is one, the CLI with its presets in _prefix/."""
    def run(self):
        super().run()
        lib, prefix = sources()
        pkg = os.path.join(self.build_lib, "lampsim")
        shutil.copyfile(lib, os.path.join(pkg, "liblampsim.so"))
        if prefix:
            dst = os.path.join(pkg, "_prefix")
            shutil.rmtree(dst, ignore_errors=True)
            os.makedirs(os.path.join(dst, "bin"))
            shutil.copy2(os.path.join(prefix, "bin", "lampsim"), os.path.join(dst, "bin", "lampsim"))
            shutil.copytree(os.path.join(prefix, "share", "lampsim"), os.path.join(dst, "share", "lampsim"),
                            ignore=shutil.ignore_patterns("__pycache__"))


class PlatformWheel(bdist_wheel):
    """The wheel holds a native library (not a Python extension): any Python 3, this platform."""
    def finalize_options(self):
        super().finalize_options()
        self.root_is_pure = False

    def get_tag(self):
        return "py3", "none", super().get_tag()[2]


os.makedirs(os.path.join(ROOT, "build", "pip"), exist_ok=True)
setup(version=cmake_version(), cmdclass={"build_py": BuildPyWithLibrary, "bdist_wheel": PlatformWheel},
      options={"build": {"build_base": os.path.join("build", "pip")},           # beside CMake's build/, not in it
               "egg_info": {"egg_base": os.path.join("build", "pip")}})
