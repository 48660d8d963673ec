import FoundationEssentials

/// The most regex steps per character of a label that one alert could be
/// held against by the silences not yet expired, filed as a
/// ``SilenceIndex`` files them: the unfiled silences, and for each name,
/// and each length of start, the costliest value or start an alert's label
/// could have; never more than all of them. What a store bounds
/// (``Silence/maxRegexStepsInForce``): a thousand silences each filed under
/// a start of its own cost an alert a few of them, where counting every
/// silence refused the 543rd (Alertmanager takes them all).
///
/// Kept between saves, each silence's keys numbered once: read, compiled
/// and filed again from every silence at each save, the budget was most of
/// the save, and saving a thousand regex silences took 2.9 s where
/// Alertmanager took 0.44.
public struct SilenceBudget: Sendable {
    /// What one label of an alert finds at most one key of.
    private enum Reach: Hashable {
        case pair(name: String)
        case start(name: String, length: Int)
    }

    /// What the budget counts of a silence. Its compiled regexes are not
    /// kept: the store's filing holds them once already.
    private struct Counted: Sendable {
        var steps: Int
        var endsAt: Date
        var keys: SilenceIndex.NumberedKeys
    }

    private var entries: [SilenceID: Counted] = [:]
    private var keys = SilenceIndex.KeyNumbers()
    /// The number of each key's reach, by the key's number.
    private var reachOfKey: [Int] = []
    private var reaches: [Reach: Int] = [:]
    /// Up to when it has let go of the silences expired: asked about an
    /// earlier time, it no longer counts those that ended between.
    public private(set) var droppedThrough = Date.distantPast

    /// The budget of `silences` (those not yet expired count). When they
    /// are those not expired at `read` (a store's table read then), it is
    /// as if the others had been let go of then.
    public init(_ silences: some Sequence<Silence>, unexpiredAt read: Date = .distantPast) {
        for silence in silences { save(silence) }
        droppedThrough = read
    }

    /// Takes in `silence` as saved, over the one with its id.
    public mutating func save(_ silence: Silence) {
        entries[silence.id] = counted(silence)
    }

    /// What one alert could be held against once `new` (if any) is saved
    /// and the silence `replaced` is gone, counting those not expired at
    /// `now`. Only numbers `new`'s keys; the silences stay as they were.
    public mutating func stepsInForce(at now: Date, saving new: Silence?, replacing replaced: SilenceID? = nil) -> Int {
        let saved = new.map { counted($0) }
        var live: [Counted] = []
        live.reserveCapacity(entries.count + 1)
        for (id, counted) in entries where id != replaced && id != new?.id && counted.endsAt > now {
            live.append(counted)
        }
        if let saved { live.append(saved) }
        defer {
            if entries.count > 2 * live.count + 64 || keys.count > 2 * live.reduce(0, { $0 + $1.keys.distinct.count }) + 256 {
                refiled(at: now)
            }
        }
        let all = live.reduce(0) { $0 + $1.steps }
        guard all > Silence.maxRegexStepsInForce else { return all }
        let filing = SilenceIndex.filed(live.lazy.map(\.keys), keyCount: keys.count)
        var filed = [Int](repeating: 0, count: keys.count)
        var unfiled = 0
        for (entry, keys) in zip(live, filing) {
            if keys.isEmpty { unfiled += entry.steps }
            for n in keys { filed[n] += entry.steps }
        }
        var most = [Int](repeating: 0, count: reaches.count)
        for (n, steps) in filed.enumerated() where steps > 0 {
            most[reachOfKey[n]] = max(most[reachOfKey[n]], steps)
        }
        return min(all, most.reduce(unfiled, +))
    }

    /// What `silences` together could cost one alert, expired or not (their
    /// sum while it is within the bound, as ``stepsInForce(at:saving:replacing:)``).
    public static func steps(of silences: [Silence]) -> Int {
        guard let last = silences.last else { return 0 }
        return steps(of: silences.dropLast(), at: .distantPast, saving: last)
    }

    /// ``stepsInForce(at:saving:replacing:)`` of a budget made for once from
    /// `unexpired`: what a store that keeps none counts at each save.
    public static func steps(of unexpired: some Sequence<Silence>, at now: Date, saving new: Silence?,
                             replacing replaced: SilenceID? = nil) -> Int {
        var budget = SilenceBudget(unexpired, unexpiredAt: now)
        return budget.stepsInForce(at: now, saving: new, replacing: replaced)
    }

    /// Starts over from the silences not expired at `now`: the keys of
    /// those expired or replaced would otherwise be kept for good.
    private mutating func refiled(at now: Date) {
        var fresh = SilenceBudget([])
        for (id, counted) in entries where counted.endsAt > now {
            let groups = counted.keys.groups.map { $0.map { fresh.number(keys.keys[$0]) } }
            fresh.entries[id] = Counted(steps: counted.steps, endsAt: counted.endsAt, keys: SilenceIndex.NumberedKeys(groups))
        }
        fresh.droppedThrough = max(droppedThrough, now)
        self = fresh
    }

    private mutating func counted(_ silence: Silence) -> Counted {
        let groups = SilenceIndex.keys(silence).map { $0.map { number($0) } }
        return Counted(steps: silence.regexSteps, endsAt: silence.endsAt, keys: SilenceIndex.NumberedKeys(groups))
    }

    private mutating func number(_ key: SilenceIndex.Key) -> Int {
        let (n, isNew) = keys.number(key)
        guard isNew else { return n }
        let reach: Reach = switch key {
        case .pair(let name, _): .pair(name: name)
        case .start(let name, let scalars): .start(name: name, length: scalars.count)
        }
        let r = reaches[reach] ?? reaches.count
        reaches[reach] = r
        reachOfKey.append(r)
        return n
    }
}
