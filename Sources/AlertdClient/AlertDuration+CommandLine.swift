import AlertModel

extension AlertDuration {
    /// The longest duration an option takes (100 years): an end thousands
    /// of years on overflowed the date, and a wait near 2^63 seconds its
    /// deadline, and alertctl trapped.
    package static let longestOption = AlertDuration(seconds: 36_500 * 86_400)
}
