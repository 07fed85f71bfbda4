"""The crash course's ``prepare_dataset.process_dataset`` (its page imports it): the
leaf pictures of every species split into ``datasets/{train,validation,test}/
{healthy,diseased}`` (70/20/rest, shuffled), the downloaded folder removed."""
import glob
import os
import random
import shutil

SPLITS = ("train", "validation", "test")
TARGETS = ("healthy", "diseased")


def process_dataset(root_directory, splits=SPLITS, classes=TARGETS, train=0.7, val=0.2,
                    test=0.2):
    for target in classes:
        files = glob.glob(f"{root_directory}/**/{target}/*.JPG")
        random.shuffle(files)
        n_train, n_val = round(len(files) * train), round(len(files) * val)
        parts = (files[:n_train], files[n_train:n_train + n_val], files[n_train + n_val:])
        for split, part in zip(splits, parts):
            folder = os.path.join("datasets", split, target)
            os.makedirs(folder, exist_ok=True)
            for path in part:
                shutil.move(path, folder)
    shutil.rmtree(root_directory)
