# TFLLVM.cmake: finds the LLVM and Clang development packages the Clang plugin
# builds against (LLVM 14 by default; -DLLVM_DIR=... for another). clang-pass/
# and tests/ (which also needs the LLVM tool paths) find the same LLVM.
# Sets <found> to TRUE when LLVM, Clang and the clang-cpp library are there;
# a macro, so that find_package's variables reach the caller.
macro(tf_find_llvm_clang found)
  find_package(LLVM CONFIG QUIET HINTS /usr/lib/llvm-14/lib/cmake/llvm)
  if(LLVM_FOUND)
    find_package(Clang CONFIG QUIET HINTS ${LLVM_DIR}/../clang /usr/lib/llvm-14/lib/cmake/clang)
  endif()
  if(LLVM_FOUND AND Clang_FOUND AND TARGET clang-cpp)
    set(${found} TRUE)
    set_property(GLOBAL PROPERTY TF_LLVM_VERSION ${LLVM_PACKAGE_VERSION}) # for tf_instrument
  else()
    set(${found} FALSE)
  endif()
endmacro()
