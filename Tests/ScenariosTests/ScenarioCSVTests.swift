import Scenarios
import Testing

@Suite struct ScenarioCSVTests {
    @Test func aFileWithOtherColumnsIsRefusedByPath() {
        #expect(throws: ScenarioError.foreignColumns(path: "old/scenario.csv")) {
            try ScenarioCSV.appending([], to: "strategy,rows\ndata,10\n", path: "old/scenario.csv")
        }
    }

    @Test func aNewFileStartsWithTheHeader() throws {
        #expect(try ScenarioCSV.appending([], to: "", path: "new.csv") == ScenarioCSV.header + "\n")
    }
}
