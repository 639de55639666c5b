"""CSVLogger: header, row format, separator, append, flushing, closing."""
import numpy as np

from kerasish.callbacks import CSVLogger, LambdaCallback, ReduceLROnPlateau

MEASURED = {"accuracy": 0.4583333432674408, "loss": 0.8321660161018372,
            "val_accuracy": 0.4375, "val_loss": 0.8535296320915222}


def _read(path):
    with open(path, newline="") as f:
        return f.read()


def test_matches_the_keras_measured_file(fake_model, run_fit, tmp_path):
    path = tmp_path / "log.csv"
    # ReduceLROnPlateau adds `learning_rate` to the logs before CSVLogger runs.
    run_fit(fake_model, [ReduceLROnPlateau(), CSVLogger(str(path))], [MEASURED])
    assert _read(path) == (
        "epoch,accuracy,learning_rate,loss,val_accuracy,val_loss\r\n"
        "0,0.4583333432674408,0.0010000000474974513,0.8321660161018372,"
        "0.4375,0.8535296320915222\r\n")


def test_one_row_per_epoch_with_0_based_epoch(fake_model, run_fit, tmp_path):
    path = tmp_path / "log.csv"
    run_fit(fake_model, [CSVLogger(path)], [{"loss": 2.0, "val_loss": 3.0},
                                            {"loss": 1.5, "val_loss": 2.5}])
    assert _read(path).splitlines() == ["epoch,loss,val_loss", "0,2.0,3.0", "1,1.5,2.5"]


def test_val_columns_added_when_first_epoch_has_none(fake_model, run_fit, tmp_path):
    path = tmp_path / "log.csv"
    run_fit(fake_model, [CSVLogger(path)], [{"loss": 1.0, "mae": 0.5},
                                            {"loss": 0.5, "mae": 0.25, "val_loss": 0.75}])
    assert _read(path).splitlines() == [
        "epoch,loss,mae,val_loss,val_mae", "0,1.0,0.5,NA,NA", "1,0.5,0.25,0.75,NA"]


def test_separator(fake_model, run_fit, tmp_path):
    path = tmp_path / "log.csv"
    run_fit(fake_model, [CSVLogger(path, separator=";")], [{"loss": 1.0, "val_loss": 2.0}])
    assert _read(path) == "epoch;loss;val_loss\r\n0;1.0;2.0\r\n"


def test_append_keeps_rows_and_writes_header_once(fake_model, run_fit, tmp_path):
    path = tmp_path / "log.csv"
    logs = [{"loss": 1.0, "val_loss": 2.0}]
    run_fit(fake_model, [CSVLogger(path, append=True)], logs)
    run_fit(fake_model, [CSVLogger(path, append=True)], logs)
    assert _read(path).splitlines() == ["epoch,loss,val_loss", "0,1.0,2.0", "0,1.0,2.0"]


def test_without_append_the_file_is_overwritten(fake_model, run_fit, tmp_path):
    path = tmp_path / "log.csv"
    path.write_text("old contents\n")
    logger = CSVLogger(path)
    run_fit(fake_model, [logger], [{"loss": 1.0, "val_loss": 2.0}])
    run_fit(fake_model, [logger], [{"loss": 0.5, "val_loss": 1.0}])
    assert _read(path).splitlines() == ["epoch,loss,val_loss", "0,0.5,1.0"]


def test_rows_are_flushed_every_epoch_and_file_closed_at_end(fake_model, run_fit, tmp_path):
    path = tmp_path / "log.csv"
    logger = CSVLogger(path)
    seen = []
    reader = LambdaCallback(on_epoch_end=lambda epoch, logs: seen.append(_read(path)))
    run_fit(fake_model, [logger, reader], [{"loss": 1.0, "val_loss": 2.0}] * 2)
    assert seen[0] == "epoch,loss,val_loss\r\n0,1.0,2.0\r\n"
    assert seen[1].count("\r\n") == 3
    assert logger.csv_file.closed


def test_value_formats(fake_model, run_fit, tmp_path):
    path = tmp_path / "log.csv"
    logs = [{"loss": np.float32(0.4583333432674408), "name": "run a",
             "vec": np.array([1, 2]), "val_loss": np.array(0.5, "float32")}]
    run_fit(fake_model, [CSVLogger(path)], logs)
    assert _read(path).splitlines() == [
        "epoch,loss,name,val_loss,vec", '0,0.4583333432674408,run a,0.5,"""[1, 2]"""']
