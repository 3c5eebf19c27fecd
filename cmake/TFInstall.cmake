# What `cmake --install build --prefix P` installs (docs/design.md .pkg):
#   P/include/tf/*.h                 the public headers
#   P/lib/libtf.so*, P/lib/libtf.a   the runtime, shared and static; libtf.so
#                                    is a linker script (TFAnchor.cmake)
#   P/lib/tf/tf.so, tf-clang.so      the plugins: -fplugin=P/lib/tf/tf.so
#   P/bin/tf-cc, tf-c++, tf-scan...  the tools (tools/*: each installs itself)
#   P/lib/cmake/TF/                  find_package(TF): TF::tf, tf_instrument()
#   P/lib/pkgconfig/tf.pc            pkg-config --cflags --libs tf
# (lib is CMAKE_INSTALL_LIBDIR.) The Debian package is the same tree under /usr.
include(CMakePackageConfigHelpers)
set(TF_PLUGIN_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/tf)
set(TF_CMAKE_INSTALL_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/TF)

set(tf_libraries tf)
if(TARGET tf_static)
  list(APPEND tf_libraries tf_static)
endif()
install(TARGETS ${tf_libraries} EXPORT TFTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} NAMELINK_SKIP
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
# -ltf: the linker script and its anchor of TFAnchor.cmake, not a link.
install(FILES ${tf_ld_script} DESTINATION ${CMAKE_INSTALL_LIBDIR} RENAME libtf.so)
install(FILES $<TARGET_OBJECTS:tf_anchor> DESTINATION ${CMAKE_INSTALL_LIBDIR} RENAME libtf-anchor.o)
install(DIRECTORY attrs/include/tf DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

# The plugins, exported as TF::gcc_plugin and TF::clang_plugin with the
# compiler version each was built for.
set(TF_GCC_PLUGIN_FOR "")
set(TF_CLANG_PLUGIN_FOR "")
if(TARGET tf_gcc_plugin)
  set_target_properties(tf_gcc_plugin PROPERTIES EXPORT_NAME gcc_plugin)
  install(TARGETS tf_gcc_plugin EXPORT TFTargets LIBRARY DESTINATION ${TF_PLUGIN_INSTALL_DIR})
  # tf.so loads it from its own directory (gcc-plugin/loader.cc).
  install(TARGETS tf_gcc_plugin_proper LIBRARY DESTINATION ${TF_PLUGIN_INSTALL_DIR})
  get_property(TF_GCC_PLUGIN_FOR GLOBAL PROPERTY TF_GCC_PLUGIN_FOR)
endif()
if(TARGET tf-clang)
  set_target_properties(tf-clang PROPERTIES EXPORT_NAME clang_plugin)
  install(TARGETS tf-clang EXPORT TFTargets LIBRARY DESTINATION ${TF_PLUGIN_INSTALL_DIR})
  get_property(TF_CLANG_PLUGIN_FOR GLOBAL PROPERTY TF_CLANG_PLUGIN_FOR)
endif()
if(TARGET tf-scan)
  install(TARGETS tf-scan RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(EXPORT TFTargets NAMESPACE TF:: DESTINATION ${TF_CMAKE_INSTALL_DIR})
configure_file(cmake/TFConfig.cmake.in TFConfig.cmake @ONLY)
write_basic_package_version_file(TFConfigVersion.cmake COMPATIBILITY SameMinorVersion)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/TFConfig.cmake
              ${CMAKE_CURRENT_BINARY_DIR}/TFConfigVersion.cmake
              cmake/TFInstrument.cmake
              cmake/TFManifest.cmake
        DESTINATION ${TF_CMAKE_INSTALL_DIR})

# tf.pc names the prefix chosen at install time (--prefix P, or /usr in the
# Debian package), not the one of configure time.
set(TF_PC_PREFIX "@CMAKE_INSTALL_PREFIX@")
configure_file(cmake/tf.pc.in tf.pc.in @ONLY)
install(CODE "
  set(tf_pc \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_LIBDIR}/pkgconfig/tf.pc\")
  message(STATUS \"Installing: \${tf_pc}\")
  configure_file(\"${CMAKE_CURRENT_BINARY_DIR}/tf.pc.in\" \"\${tf_pc}\" @ONLY)")

include(cmake/TFDebian.cmake)
