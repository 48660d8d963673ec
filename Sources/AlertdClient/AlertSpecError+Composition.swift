import AlertModel

extension AlertSpecError.Code {
    /// The template file given with `--templates` or `ALERTD_TEMPLATES`
    /// cannot be read or is not a valid template file.
    public static let invalidTemplateFile = AlertSpecError.Code(rawValue: "invalid_template_file")
}
