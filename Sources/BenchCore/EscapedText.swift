/// Text from outside (a file name, a symbol name) made safe for one line of a message, a table
/// or a CSV: every byte kept, escaped where it is not printable text.
package enum EscapedText {
    /// UTF-8 text as it is, but a backslash doubled, a control character as \n, \r, \t or \xNN, a
    /// format character (category Cf: U+202E, U+200B, ...) as its bytes \xNN, and a byte that is
    /// not UTF-8 as \xNN: one line, and distinct names stay distinct.
    package static func escaped(_ bytes: [UInt8]) -> String {
        var text = ""
        var iterator = bytes.makeIterator()
        var parser = Unicode.UTF8.ForwardParser()
        var offset = 0
        func hex(_ byte: UInt8) -> String { "\\x" + (byte < 16 ? "0" : "") + String(byte, radix: 16) }
        while true {
            switch parser.parseScalar(from: &iterator) {
            case .valid(let encoded):
                let scalar = Unicode.UTF8.decode(encoded)
                switch scalar {
                case "\\": text += "\\\\"
                case "\n": text += "\\n"
                case "\r": text += "\\r"
                case "\t": text += "\\t"
                // Format characters too: U+202E would turn the rest of a table's line around.
                case _ where [.control, .format].contains(scalar.properties.generalCategory):
                    text += encoded.map(hex).joined()
                default: text.unicodeScalars.append(scalar)
                }
                offset += encoded.count
            case .error(let length):
                text += bytes[offset..<offset + length].map(hex).joined()
                offset += length
            case .emptyInput:
                return text
            }
        }
    }

    /// `text` escaped the same way (a NUL included).
    package static func escaped(_ text: String) -> String { escaped(Array(text.utf8)) }
}
