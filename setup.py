"""`pip install .` (pyproject.toml): puts liblampsim.so inside the package, taken from $LAMPSIM_LIB or
built with CMake into build/pip/cmake (CMAKE_ARGS from the environment are passed on). The version is
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


def library():
    """$LAMPSIM_LIB, or liblampsim.so built into build/pip."""
    lib = os.environ.get("LAMPSIM_LIB")
    if lib:
        if not os.path.isfile(lib):
            raise SystemExit("LAMPSIM_LIB=%s: no such file" % lib)
        return lib
    build = os.path.join(ROOT, "build", "pip", "cmake")
    args = os.environ.get("CMAKE_ARGS", "").split()
    subprocess.check_call(["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DBUILD_TESTING=OFF"] + args)
    subprocess.check_call(["cmake", "--build", build, "--target", "lampsim_shared", "-j", str(os.cpu_count() or 2)])
    return os.path.join(build, "liblampsim.so")


class BuildPyWithLibrary(build_py):
    def run(self):
        super().run()
        dst = os.path.join(self.build_lib, "lampsim", "liblampsim.so")
        shutil.copyfile(library(), dst)


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
