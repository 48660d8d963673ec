// bench/bounds/version.swift: the least `alertctl --version` can cost on this
// machine: a Swift program built as alertctl's release is (static Swift
// runtime, lld, packed relocations), which prints one line and exits.
//
//   swiftc -O -static-stdlib -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
//       -Xlinker --no-export-dynamic bench/bounds/version.swift -o version
//   version --version
if CommandLine.arguments.dropFirst().first == "--version" {
    print("version 0.1.0")
}
