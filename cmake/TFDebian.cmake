# The Debian package: `cpack -G DEB --config build/CPackConfig.cmake` makes
# tf_<version>_<arch>.deb, the installed tree of TFInstall.cmake under /usr,
# for `apt-get install ./tf_*.deb`. dpkg-shlibdeps finds the libraries the
# files load (libc6, and libllvm14 / libclang-cpp14 for tf-clang.so and
# tf-scan). GCC loads a plugin only into the GCC version it was built for,
# which no library dependency expresses: the package depends on that gcc-N
# package, within the same upstream version.
set(CPACK_PACKAGE_NAME tf)
set(CPACK_PACKAGE_VENDOR "TF project")
set(CPACK_PACKAGE_CONTACT "TF maintainers <tf@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "tracing facility for C and C++ built into GCC and Clang")
set(CPACK_PACKAGE_DESCRIPTION
    "Compiler plugins for GCC (tf.so) and Clang (tf-clang.so) inject enter, exit and exception hooks into annotated functions; libtf decides at run time what they do. Includes the tf-cc and tf-c++ compiler wrappers, a CMake package and a pkg-config file.")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON) # and the ldconfig trigger for libtf.so.0
if(TARGET tf_gcc_plugin)
  string(REGEX MATCH "^([0-9]+)\\.([0-9]+)\\.([0-9]+)" v "${CMAKE_C_COMPILER_VERSION}")
  math(EXPR next_patch "${CMAKE_MATCH_3}+1")
  set(gcc gcc-${CMAKE_MATCH_1})
  set(CPACK_DEBIAN_PACKAGE_DEPENDS
      "${gcc} (>= ${v}), ${gcc} (<< ${CMAKE_MATCH_1}.${CMAKE_MATCH_2}.${next_patch}~)")
endif()
include(CPack)
